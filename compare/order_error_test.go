package compare

import (
	"context"
	"strings"
	"testing"
	"time"

	"ratebench/internal/numfmt"
	"ratebench/traces"
)

// A key going back in time fails the replay with both times as dates, the
// gap and the -reorder that puts it in order: how far it came after the
// latest time read before it, rounded up; with a -reorder too small, by how
// much. One worker or several say the same.
func TestOrderErrorMessage(t *testing.T) {
	const s2015 = "1431857" // 1431857110 is 2015-05-17T10:05:10Z
	// b's second request (line 5) is 2.5s before its first but 34.2s
	// before the latest read before it (c's); with -reorder 35s it is put
	// in order, but b's third (line 7) comes 39s after d's.
	in := "ts,key\n" +
		s2015 + "110.000,a\n" +
		s2015 + "112.800,b\n" +
		s2015 + "144.500,c\n" +
		s2015 + "110.300,b\n" +
		s2015 + "150.000,d\n" +
		s2015 + "111.000,b\n"
	tests := []struct {
		reorder time.Duration
		want    string
	}{
		{0, `t.csv:5: key "b": time goes backwards by 2.5s, to 2015-05-17T10:05:10.3Z after 2015-05-17T10:05:12.8Z; ` +
			`use -reorder 35s (ratebench inspect t.csv reports the least that works)`},
		{10 * time.Second, `t.csv:5: key "b": time goes backwards by 2.5s, to 2015-05-17T10:05:10.3Z after 2015-05-17T10:05:12.8Z; ` +
			`-reorder 10s is too small by 25s: use -reorder 35s (ratebench inspect t.csv reports the least that works)`},
		{35 * time.Second, `t.csv:7: key "b": time goes backwards by 1.8s, to 2015-05-17T10:05:11Z after 2015-05-17T10:05:12.8Z; ` +
			`-reorder 35s is too small by 4s: use -reorder 39s (ratebench inspect t.csv reports the least that works)`},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			r, err := traces.NewCSVReader(strings.NewReader(in), "t.csv", traces.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var rd traces.Reader = r
			if tt.reorder > 0 {
				rd = traces.Reorder(r, tt.reorder)
			}
			e, err := New(Config{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			err = e.Replay(context.Background(), rd)
			if err == nil || err.Error() != tt.want {
				t.Errorf("-reorder %v, %d workers:\n got %v\nwant %s", tt.reorder, workers, err, tt.want)
			}
		}
	}
}

func TestReorderHint(t *testing.T) {
	for ns, want := range map[int64]string{
		1: "1ns", 99: "99ns", 101: "110ns", 34_200_000_000: "35s", 59_300_000_000: "1m", 35_000_000_000: "35s",
		23_410_000: "24ms", 1_234_000_000: "1.3s", 125_300_000_000: "2m6s", 3600_000_000_001: "1h0m1s", 7200_000_000_000: "2h",
	} {
		if got := numfmt.FlagDuration(reorderHint(ns)); got != want {
			t.Errorf("reorderHint(%v) = %s, want %s", time.Duration(ns), got, want)
		}
	}
}
