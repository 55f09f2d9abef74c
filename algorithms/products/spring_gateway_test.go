package products_test

import (
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Spring's clock alone changes decisions of its twin, the token bucket,
// both ways: at 1/1s a request at 1.2 s after one at 0.9 s is refused by
// the exact bucket (0.3 of a token back) but admitted on Redis TIME, which
// counts a whole second between them; at 5/1s, five requests at 0 and three
// at 0.5 s, the exact bucket has 2.5 tokens back and admits two, Redis
// TIME counts no second and refuses all three. Turned off, the timelines
// are the twin's.
func TestSpringGatewayClockAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		rule          string
		times         []int64
		twin, product string
	}{
		{"1/1s", []int64{900 * ms, 1200 * ms}, "AR", "AA"},
		{"5/1s", []int64{0, 0, 0, 0, 0, 500 * ms, 500 * ms, 500 * ms}, "AAAAAAAR", "AAAAARRR"},
		{"1/1s", []int64{1000 * ms, 1999 * ms, 2000 * ms}, "ARA", "ARA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		reqs := make([][2]int64, len(c.times))
		for i, at := range c.times {
			reqs[i] = [2]int64{at, 1}
		}
		if got := costTimeline(t, "token", r, reqs...); got != c.twin {
			t.Errorf("%s %v: the twin decides %s, want %s", c.rule, c.times, got, c.twin)
		}
		if got := costTimeline(t, "spring-gateway", r, reqs...); got != c.product {
			t.Errorf("%s %v: spring-gateway decides %s, want %s", c.rule, c.times, got, c.product)
		}
		if got := costTimeline(t, "spring-gateway:without=clock", r, reqs...); got != c.twin {
			t.Errorf("%s %v: without its clock %s, want the twin's %s", c.rule, c.times, got, c.twin)
		}
	}
}

// The rule is configured as Spring's documentation writes a rate: the
// fewest whole replenishRate and requestedTokens of the rate L/W, and L
// requests at once; a window not of whole seconds is refused.
func TestSpringGatewayConfig(t *testing.T) {
	for rule, want := range map[string][3]int64{"10/1m": {1, 6, 60}, "100/1m": {5, 3, 300}, "5/1s": {5, 1, 5}, "1/1h": {1, 3600, 3600}} {
		r, _ := algorithms.ParseRule(rule)
		sg, err := products.NewSpringGateway(r)
		if err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		if rate, req, capa := sg.Config(); [3]int64{rate, req, capa} != want {
			t.Errorf("%s: replenishRate %d, requestedTokens %d, burstCapacity %d; want %v", rule, rate, req, capa, want)
		}
	}
	r, _ := algorithms.ParseRule("5/1500ms")
	if _, err := algorithms.New("spring-gateway", r); err == nil {
		t.Errorf("spring-gateway took a window of 1.5 s")
	}
}
