package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// percent returns the collector's percentage, changing nothing.
func percent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The pace is the default up to Slack of live heap; past it the heap
// grows by Slack, then by MinPercent of what is live.
func TestPercentBoundsTheSlack(t *testing.T) {
	cases := []struct {
		live uint64
		want int
	}{
		{0, 100},
		{Slack, 100},
		{Slack + 1, 99},
		{2 * Slack, 50},
		{4 * Slack, 25},
		{10 * Slack, 10},
		{11 * Slack, 10},
		{1 << 40, 10},
	}
	for _, c := range cases {
		if got := Percent(c.live); got != c.want {
			t.Errorf("Percent(%d MiB) = %d; want %d", c.live>>20, got, c.want)
		}
		if c.live > Slack && c.live < 10*Slack && uint64(Percent(c.live))*c.live/100 > Slack {
			t.Errorf("Percent(%d MiB) = %d lets the heap grow by more than Slack", c.live>>20, Percent(c.live))
		}
	}
}

// Started, the pacer sets the collector's percentage after a collection
// finds a large live heap, and sets it back once the heap is small again.
func TestStartPacesAfterCollections(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: Start keeps the user's pace")
	}
	defer debug.SetGCPercent(percent())
	Start()
	wait := func(lo, hi int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			runtime.GC()
			if p := percent(); lo <= p && p <= hi {
				return
			}
		}
		t.Fatalf("collector at %d%% after collections; want %d%% to %d%%", percent(), lo, hi)
	}
	big := make([]byte, 4*Slack)
	big[len(big)-1] = 1
	wait(Percent(4*Slack+16<<20), Percent(4*Slack)) // the test's own heap is live too
	runtime.KeepAlive(big)
	wait(defaultPercent, defaultPercent)
}
