package tracestats

import (
	"strings"
	"testing"
)

// The description counts requests, keys and cost, and tells how far a
// key's time goes back: what -reorder needs, as a compare command to
// paste.
func TestStats(t *testing.T) {
	s := New()
	const sec = 1_000_000_000
	for _, q := range []struct {
		key     string
		t, cost int64
	}{{"a", 10 * sec, 1}, {"b", 12 * sec, 2}, {"a", 9 * sec, 1}, {"b", 13 * sec, 1}} {
		s.Add([]byte(q.key), q.t, q.cost)
	}
	var b strings.Builder
	s.Print(&b, "my trace.csv", "csv")
	out := b.String()
	for _, want := range []string{
		"trace      my trace.csv (csv)\n",
		"requests   4 (total cost 5)\n",
		"keys       2\n",
		"order      NOT ordered: 1 requests go back in time within their key, by up to 1s; compare needs -reorder 3s: ratebench compare -trace 'my trace.csv' -reorder 3s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if s.Requests() != 4 || s.Start() != 9*sec || s.End() != 13*sec {
		t.Errorf("requests %d, %d..%d", s.Requests(), s.Start(), s.End())
	}
}

// The description measures the resolution of the times: the unit they
// are all multiples of, and the requests at their key's previous time
// (a key's first request is never one).
func TestStatsResolution(t *testing.T) {
	const minute = 60_000_000_000
	s := New()
	for _, q := range []struct {
		key string
		t   int64
	}{{"a", 10 * minute}, {"b", 10 * minute}, {"a", 10 * minute}, {"a", 12 * minute}, {"b", 12 * minute}, {"b", 12 * minute}, {"b", 12 * minute}, {"c", 14 * minute}} {
		s.Add([]byte(q.key), q.t, 1)
	}
	if s.Resolution() != 2*minute || s.SameTime() != 3 {
		t.Errorf("resolution %d ns, %d at the same time; want 2m and 3", s.Resolution(), s.SameTime())
	}
	var b strings.Builder
	s.Print(&b, "t.csv", "csv")
	if want := "resolution every time a multiple of 2m0s; 37.50% of the requests at their key's previous time\n"; !strings.Contains(b.String(), want) {
		t.Errorf("lacks %q:\n%s", want, b.String())
	}
	s.Add([]byte("c"), 14*minute+1, 1)
	if s.Resolution() != 1 {
		t.Errorf("resolution %d ns after a time in ns", s.Resolution())
	}
}

// Where a key's time goes back as read, the requests at their key's
// previous time in time order are not all seen: the share is said to be
// a lower bound until SetSameTime gives the count in time order.
func TestStatsSameTimeOutOfOrder(t *testing.T) {
	const sec = 1_000_000_000
	s := New()
	for _, ts := range []int64{5, 5, 4, 4, 4} { // in time order 4, 4, 4, 5, 5: three
		s.Add([]byte("a"), ts*sec, 1)
	}
	if s.KeyOrdered() || s.SameTimeExact() || s.SameTime() != 1 {
		t.Errorf("key ordered %v, exact %v, %d at the same time; want false, false, 1", s.KeyOrdered(), s.SameTimeExact(), s.SameTime())
	}
	var b strings.Builder
	s.Print(&b, "t.csv", "csv")
	if want := "resolution every time a multiple of 1s; at least 20.00% of the requests at their key's previous time (in time order"; !strings.Contains(b.String(), want) {
		t.Errorf("lacks %q:\n%s", want, b.String())
	}
	s.SetSameTime(3)
	b.Reset()
	s.Print(&b, "t.csv", "csv")
	if want := "resolution every time a multiple of 1s; 60.00% of the requests at their key's previous time\n"; !s.SameTimeExact() || !strings.Contains(b.String(), want) {
		t.Errorf("lacks %q:\n%s", want, b.String())
	}
}
