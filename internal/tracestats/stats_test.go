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
