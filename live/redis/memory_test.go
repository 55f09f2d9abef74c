package redis

import (
	"slices"
	"testing"
)

// The sample of keys asked about is every key when there are few, else
// evenly spaced ones of the sorted names, the first included.
func TestEvenlySpaced(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e", "f", "g"}
	if got := evenlySpaced(keys, 10); !slices.Equal(got, keys) {
		t.Errorf("10 of 7 = %v, want all", got)
	}
	if got, want := evenlySpaced(keys, 3), []string{"a", "c", "e"}; !slices.Equal(got, want) {
		t.Errorf("3 of 7 = %v, want %v", got, want)
	}
}

// summarize's figures, per key and per encoding: the marginal bytes of an
// entry only where the sizes of the keys of an encoding vary.
func TestSummarize(t *testing.T) {
	m := summarize([]keyMem{
		{name: "k1", enc: "listpack", bytes: 100, entries: 2},
		{name: "key2", enc: "skiplist", bytes: 1000, entries: 200},
		{name: "k3", enc: "listpack", bytes: 140, entries: 6},
	})
	if m.SampledKeys != 3 || m.Entries != 208 || m.BytesPerKey != 1240.0/3 || m.BytesPerEntry != 1240.0/208 || m.KeyNameBytes != 8.0/3 {
		t.Errorf("totals %+v", m)
	}
	if len(m.Encodings) != 2 || m.Encodings[0].Encoding != "listpack" || m.Encodings[1].Encoding != "skiplist" {
		t.Fatalf("encodings %+v, want listpack then skiplist", m.Encodings)
	}
	lp, sl := m.Encodings[0], m.Encodings[1]
	if lp.Keys != 2 || lp.Bytes != 240 || lp.Entries != 8 || lp.BytesPerKey != 120 || lp.BytesPerEntry != 30 ||
		lp.MarginalBytesPerEntry == nil || *lp.MarginalBytesPerEntry != 10 {
		t.Errorf("listpack %+v", lp)
	}
	if sl.Keys != 1 || sl.MarginalBytesPerEntry != nil {
		t.Errorf("skiplist %+v: one key gives no marginal size", sl)
	}
	if m := summarize(nil); m.SampledKeys != 0 || m.Encodings != nil {
		t.Errorf("no keys: %+v", m)
	}
}
