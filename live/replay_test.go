package live

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"ratebench/algorithms"
)

// lockedSession is software that several clients may ask at once: one
// limiter behind a lock, which tells the order it decided in.
type lockedSession struct {
	Plain
	mu     sync.Mutex
	l      algorithms.Limiter
	seq    int64
	seen   map[int]int
	order  bool // tell the order decided in
	settle func(d []Decision)
}

func (s *lockedSession) Decide(_ context.Context, q Request) (Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[q.Index]++
	a := s.l.Decide(q.ID, q.T, 1)
	if a {
		s.l.Record(q.ID, q.T, 1)
	}
	s.seq++
	d := Decision{Admit: a, At: q.T}
	if s.order {
		d.Order = s.seq
	}
	return d, nil
}

func (s *lockedSession) Settle(_ context.Context, d []Decision) error {
	if s.settle != nil {
		s.settle(d)
	}
	return nil
}

func (s *lockedSession) Close() error { return nil }

func concurrentTarget(s *lockedSession) Target {
	return Target{Name: "locked", Driven: true, Clients: true,
		Version: func(context.Context, Options) (string, error) { return "locked 1.0", nil },
		Model:   func(algorithms.Rule, Options) (string, error) { return "token", nil },
		Start: func(_ context.Context, r algorithms.Rule, tr *Trace, _ Options) (Session, error) {
			l, err := algorithms.New("token", r)
			l.Grow(tr.Keys)
			s.l, s.seen = l, map[int]int{}
			return s, err
		}}
}

// With several clients every request is sent once, and the model fed the
// times in the order the software tells it decided them agrees on every
// request; a target that takes one client refuses more.
func TestRunWithConcurrentClients(t *testing.T) {
	tr := Bursty3Keys()
	s := &lockedSession{order: true}
	res, err := Run(context.Background(), concurrentTarget(s), checkRule(t), tr, Options{Clients: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.seen) != len(tr.T) {
		t.Errorf("%d requests decided, want %d", len(s.seen), len(tr.T))
	}
	for i, n := range s.seen {
		if n != 1 {
			t.Errorf("request %d decided %d times", i, n)
		}
	}
	if res.Clients != 8 || res.Model.Disagree() != 0 || res.Model.Agree != int64(len(tr.T)) {
		t.Errorf("%d clients, model %+v: want 8, and every request agreeing", res.Clients, res.Model)
	}
	serial := fakeTarget("token", 0, 0, new(int))
	if _, err := Run(context.Background(), serial, checkRule(t), tr, Options{Clients: 2}); err == nil || !strings.Contains(err.Error(), "one client") {
		t.Errorf("a serial target with 2 clients: %v", err)
	}
	if err := CheckOptions(concurrentTarget(s), Options{Clients: MaxClients + 1}); err == nil {
		t.Error("more clients than MaxClients: no error")
	}
}

// Settle completes the decisions before they are compared: a session
// that tells its answers only then is set beside its model on them.
func TestRunSettlesBeforeComparing(t *testing.T) {
	tr := Bursty3Keys()
	var settled []Decision
	s := &lockedSession{settle: func(d []Decision) {
		settled = append([]Decision(nil), d...)
		for i := range d { // the answers, known only now: the opposite of Decide's
			d[i].Admit = !d[i].Admit
		}
	}}
	res, err := Run(context.Background(), concurrentTarget(s), checkRule(t), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(settled) != len(tr.T) || res.Model.Agree != 0 || res.Model.Disagree() != int64(len(tr.T)) {
		t.Errorf("settled %d decisions; model %+v: want every answer flipped by Settle", len(settled), res.Model)
	}
}

// A target on its own clock is paced: each request goes when it is due
// at the speed, none early, and the timing says how late they went.
func TestRunPacesSoftwareOnItsOwnClock(t *testing.T) {
	tr := Bursty3Keys()
	tg := fakeTarget("fixed", 0, 0, new(int))
	tg.Driven = false
	tg.Model = func(algorithms.Rule, Options) (string, error) { return "fixed", nil }
	start := time.Now()
	res, err := Run(context.Background(), tg, checkRule(t), tr, Options{Speed: big.NewRat(100, 1)})
	if err != nil {
		t.Fatal(err)
	}
	span := time.Duration(tr.T[len(tr.T)-1]-tr.T[0]) / 100
	if took := time.Since(start); took < span {
		t.Errorf("the replay took %v, less than the %v its pace asks for", took, span)
	}
	if res.Clock != "real" || res.Speed != "100" || res.Intended == nil || res.ModelRule != "5/10ms" {
		t.Errorf("clock %q speed %q intended %v model rule %q", res.Clock, res.Speed, res.Intended, res.ModelRule)
	}
	if tm := res.Timing; tm.Late.Samples != int64(len(tr.T)) || tm.RequestedPerS <= 0 || tm.AchievedPerS <= 0 || tm.Latency.Samples != int64(len(tr.T)) {
		t.Errorf("timing %+v", tm)
	}
}

// A tick sends each request at the start of the tick it is due in.
func TestPacerTick(t *testing.T) {
	p := NewPacer(big.NewRat(1, 1))
	p.first, p.tick = 100, time.Millisecond
	if d := p.due(100 + 2_999_999); d != 2*time.Millisecond {
		t.Errorf("due %v, want 2ms", d)
	}
	if d := p.Due(100 + 2_999_999); d != 2_999_999 {
		t.Errorf("Due %d, want the time itself", d)
	}
}

// Find takes the longest registered name before a colon.
func TestFind(t *testing.T) {
	for _, name := range []string{"test-find", "test-find:sub"} {
		Register(Target{Name: name})
	}
	for spec, want := range map[string][2]string{
		"test-find":           {"test-find", ""},
		"test-find:a=1":       {"test-find", "a=1"},
		"test-find:sub":       {"test-find:sub", ""},
		"test-find:sub:b=2":   {"test-find:sub", "b=2"},
		"test-find:subway:c":  {"test-find", "subway:c"},
		"test-find:token:B=3": {"test-find", "token:B=3"},
	} {
		tg, v, ok := Find(spec)
		if !ok || tg.Name != want[0] || v != want[1] {
			t.Errorf("Find(%q) = %q, %q, %v; want %q, %q", spec, tg.Name, v, ok, want[0], want[1])
		}
	}
	if _, _, ok := Find("no-such:x"); ok {
		t.Error("Find(no-such:x) found a target")
	}
}
