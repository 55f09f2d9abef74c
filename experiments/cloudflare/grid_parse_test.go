package cloudflare

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

func TestParseGrid(t *testing.T) {
	r, _ := algorithms.ParseRule("100/1m")
	base := Grid{Rules: []algorithms.Rule{r}, Rates: []float64{0.2}, Alphas: []float64{1.5}, Maxes: []float64{1000}, Blocks: []string{""}, Algs: []string{"counter"}}
	g, err := ParseGrid("L=20,100;W=10s;block=0,1m,window;alg=counter,counter-floor", base)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Points()) != 2*3*2 || g.Rules[0].L != 20 || g.Rules[1].W != 10e9 || g.Blocks[2] != "window" || g.Rates[0] != 0.2 {
		t.Errorf("%+v", g)
	}
	for spec, want := range map[string]string{
		"speed=1":    `unknown axis "speed"`,
		"block=-1s":  `block "-1s" is not a positive duration`,
		"block=":     `block "" is not a positive duration`,
		"block=0,":   `block "" is not a positive duration`,
		"rate=fast":  `rate "fast" is not a number`,
		"alg=nosuch": `nosuch`,
		"rate":       "want AXIS=v1,v2",
		"L=0":        `limit "0" is not a positive integer`,
	} {
		if _, err := ParseGrid(spec, base); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}
