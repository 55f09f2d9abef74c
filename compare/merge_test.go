package compare

import (
	"strings"
	"testing"

	"ratebench/summary"
)

// Merge takes the shards of one replay, each once: a summary of the whole
// replay merges only alone, never with another whole one (every count
// would double) nor with a shard (whose keys it holds already); parts of
// other content under the same name are refused.
func TestMergeRefusesOverlappingParts(t *testing.T) {
	reqs := randomTrace(5, 400, 12, 30*sec)
	whole := replay(t, Config{}, reqs)
	if m, err := summary.Merge([]*summary.Summary{whole}); err != nil || m.Trace.Requests != whole.Trace.Requests || m.Runs[1].Over != whole.Runs[1].Over {
		t.Errorf("a whole summary alone: %v", err)
	}
	shard := replay(t, Config{Shard: &summary.Shard{Index: 0, Count: 2}}, reqs)
	for _, tc := range []struct {
		parts []*summary.Summary
		want  string
	}{
		{[]*summary.Summary{whole, whole}, "part 1 and part 0 are both a whole replay"},
		{[]*summary.Summary{whole, shard}, "part 1 is shard 0/2 and part 0 a whole replay"},
		{[]*summary.Summary{shard, whole}, "part 1 is a whole replay and part 0 shard 0/2"},
		{[]*summary.Summary{shard, shard}, "shard 0/2 given twice"},
	} {
		if _, err := summary.Merge(tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Merge: %v, want %q", err, tc.want)
		}
	}
	a := replay(t, Config{Shard: &summary.Shard{Index: 0, Count: 2}}, reqs)
	b := replay(t, Config{Shard: &summary.Shard{Index: 1, Count: 2}}, reqs)
	a.Trace.Fingerprint, b.Trace.Fingerprint = "sha256:aa", "sha256:bb"
	if _, err := summary.Merge([]*summary.Summary{a, b}); err == nil || !strings.Contains(err.Error(), "other content") {
		t.Errorf("parts of other content: %v", err)
	}
}
