package products_test

import (
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// 10/1s, burst 10: a token per 100 ms. Ten requests at 0 take every
// token, the eleventh is throttled (it takes none); at 100 ms one token is
// back, at 150 ms half of one.
func TestAWSAPIGatewayTimeline(t *testing.T) {
	l := mustNew(t, "aws-api-gateway", "10/1s")
	if p := l.(algorithms.Product); p.Twin() != "token" || l.Name() != "aws-api-gateway" || len(p.Deviations()) != 1 {
		t.Fatalf("%s: twin %q, deviations %v", l.Name(), p.Twin(), p.Deviations())
	}
	var steps []step
	for range 10 {
		steps = append(steps, step{T: 0, Cost: 1, Admit: true})
	}
	steps = append(steps,
		step{T: 0, Cost: 1, Admit: false},
		step{T: 100 * ms, Cost: 1, Admit: true},
		step{T: 150 * ms, Cost: 1, Admit: false},
		step{T: 200 * ms, Cost: 1, Admit: true},
	)
	play(t, l, false, steps)
	// burst=N is the bucket's size, the twin token:B=N.
	b := mustNew(t, "aws-api-gateway:burst=2", "10/1s")
	if b.Name() != "aws-api-gateway:burst=2" || b.(algorithms.Product).Twin() != "token:B=2" {
		t.Errorf("%s: twin %s", b.Name(), b.(algorithms.Product).Twin())
	}
	play(t, b, false, []step{{T: 0, Cost: 1, Admit: true}, {T: 0, Cost: 1, Admit: true}, {T: 0, Cost: 1, Admit: false}, {T: 100 * ms, Cost: 1, Admit: true}})
	if got := b.(*products.AWSAPIGateway).Bytes(0); got != 16 {
		t.Errorf("bytes %d, want 16", got)
	}
	for _, bad := range []string{"aws-api-gateway:burst=0", "aws-api-gateway:burst=x", "aws-api-gateway:rate=3"} {
		if _, err := algorithms.New(bad, mustRule(t, "10/1s")); err == nil || !strings.Contains(err.Error(), "ThrottlingBurstLimit") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// one-hit: "a token counts for a request". 5/1s, two requests of cost 3
// at 0: the twin takes 3 tokens and has 2 left for the second; API
// Gateway takes one token a request and admits both.
func TestAWSAPIGatewayOneHit(t *testing.T) {
	r := mustRule(t, "5/1s")
	reqs := [][2]int64{{0, 3}, {0, 3}}
	checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, reqs...) }, "token", "aws-api-gateway", "one-hit", "AR", "AA")
}
