package plotkit

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Every linear axis has 3 to 8 labelled ticks at a round step, whatever
// its range (gonum's default labels two or three).
func TestAxisTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 10.53}, {0, 1}, {-0.4, 12.3}, {0, 632}, {0, 1.08}, {3, 7}, {0, 0.0021}, {-5, 5}, {0, 1e6}, {17, 18}} {
		var labels []string
		for _, tk := range (LinearTicks{}).Ticks(r[0], r[1]) {
			if tk.Value < r[0]-1e-9 || tk.Value > r[1]+1e-9 {
				t.Errorf("%v: tick %v outside the range", r, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 3 || len(labels) > 8 {
			t.Errorf("%v: %d labelled ticks %v, want 3 to 8", r, len(labels), labels)
		}
	}
	got := []string{}
	for _, tk := range (LinearTicks{}).Ticks(0, 10.53) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"0", "2", "4", "6", "8", "10"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ticks over [0, 10.53]: %v, want %v", got, want)
	}
}

func TestFormatTick(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.5, "0.5"}, {0.01, "0.01"}, {0.00001, "0.00001"}, {0.0123456, "0.0123"}, {1, "1"}, {2.5, "2.5"},
		{25, "25"}, {250, "250"}, {999, "999"}, {1000, "1,000"}, {2500, "2,500"}, {9995, "10k"}, {10000, "10k"},
		{15000, "15k"}, {250000, "250k"}, {1e6, "1M"}, {1.5e6, "1.5M"}, {2e9, "2G"}, {-1000, "-1,000"}, {-0.25, "-0.25"},
	} {
		if got := FormatTick(c.v); got != c.want {
			t.Errorf("FormatTick(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	for e := -8; e <= 12; e++ {
		for _, m := range []float64{1, 2, 5} {
			if s := FormatTick(m * math.Pow(10, float64(e))); strings.ContainsAny(s, "eE") {
				t.Errorf("FormatTick(%ge%d) = %q, in exponent notation", m, e, s)
			}
		}
	}
}

// No two ticks of an axis carry the same label, however narrow its range
// against its values (a span of 1,140 to 1,141 s had five "1,140"), and
// the labels are those of their values.
func TestTickLabelsDistinct(t *testing.T) {
	for _, r := range [][2]float64{{1140, 1141}, {1140, 1140.05}, {0.99999, 1.00001}, {1e6, 1e6 + 1}, {12345, 12346}, {-1141, -1140}, {99.9, 100.1}, {0, 10.53}, {1e9, 1e9 + 3}} {
		seen := map[string]float64{}
		labelled := 0
		for _, tk := range (LinearTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			labelled++
			if v, ok := seen[tk.Label]; ok {
				t.Errorf("%v: %v and %v are both labelled %q", r, v, tk.Value, tk.Label)
			}
			seen[tk.Label] = tk.Value
			if v, err := strconv.ParseFloat(strings.NewReplacer(",", "", "k", "e3", "M", "e6", "G", "e9").Replace(tk.Label), 64); err != nil || math.Abs(v-tk.Value) > (r[1]-r[0])/20 {
				t.Errorf("%v: the tick at %v is labelled %q", r, tk.Value, tk.Label)
			}
		}
		if labelled < 3 {
			t.Errorf("%v: %d labelled ticks, want 3 or more", r, labelled)
		}
	}
	for _, c := range []struct {
		v, step float64
		want    string
	}{{1140.2, 0.2, "1,140.2"}, {1140, 0.25, "1,140.00"}, {-1140.5, 0.5, "-1,140.5"}, {1000000, 0.5, "1,000,000.0"}, {0.00012, 0.00002, "0.00012"}, {120, 20, "120"}} {
		if got := TickAtStep(c.v, c.step); got != c.want {
			t.Errorf("TickAtStep(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}
