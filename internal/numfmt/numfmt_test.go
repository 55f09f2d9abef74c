package numfmt

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Percent(0), "0%"}, {Percent(5e-8), "0.0000050%"}, {Percent(1.23e-7), "0.000012%"}, {Percent(9.99e-7), "0.000100%"}, {Percent(0.00003), "0.0030%"}, {Percent(0.005), "0.500%"}, {Percent(0.25), "25.00%"},
		{Rate(math.NaN()), "—"}, {SignedRate(0.01), "+1.00%"}, {SignedRate(-0.01), "−1.00%"}, {SignedPercent(-0.5), "−50.00%"},
		{PercentOf(1, 0), "—"}, {PercentOf(1, 4), "25.00%"},
		{FlagRate(0.0001), "0.01%"}, {FlagRate(0.1), "10%"}, {FlagRate(1), "100%"}, {FlagRate(0), "0%"}, {FlagRate(0.123456789), "12.3456789%"},
		{Agreement(true, 100), "100%"}, {Agreement(false, 99.99999), "99.999%"},
		{TerminalPercent(0), "0"}, {TerminalPercent(0.5), "50.000%"},
		{ExactPercent(1, 3, 0), "33.333333"}, {ExactPercent(0, 0, 0.5), "50"}, {ExactPercent(0, 0, math.NaN()), ""},
		{Count(-1234567), "-1,234,567"}, {Count(999), "999"}, {BytesIEC(3 << 20), "3 MiB"}, {BytesIEC(3 << 30), "3.00 GiB"},
		{Duration(0), "0 s"}, {Duration(1_500_000_000), "1.5s"}, {Duration(61_234_567_890), "1m1.235s"},
		{ShortDuration(1_234_567), "1.23ms"}, {Latency(1_234_567), "1.23ms"}, {Latency(1_234), "1µs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
