package traces

import (
	"math/rand/v2"
	"testing"
	"time"
)

// parseRFC3339 agrees with the time package on random instants, zones and
// fractions, and refuses the dates the calendar does not have.
func TestParseRFC3339AgreesWithTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		ns := rng.Int64N(1<<63-1) - 1<<40 // 1970 (and a little before) to 2262
		zone := time.FixedZone("", (rng.IntN(48)-24)*1800)
		s := time.Unix(0, ns).In(zone).Format(time.RFC3339Nano)
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		got, msg := parseRFC3339([]byte(s))
		if want.UnixNano() < 0 {
			if msg == "" {
				t.Errorf("%s: accepted a time before 1970", s)
			}
			continue
		}
		if msg != "" || got != want.UnixNano() {
			t.Fatalf("%s: got %d (%s), want %d", s, got, msg, want.UnixNano())
		}
	}
	for _, bad := range []string{"2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T00:00:00.Z"} {
		if _, msg := parseRFC3339([]byte(bad)); msg == "" {
			t.Errorf("%s accepted", bad)
		}
	}
}
