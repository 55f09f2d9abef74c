// Package gubernatorcheck checks the gubernator model of package products
// against the real github.com/gubernator-io/gubernator/v2. It is a module
// of its own so that gubernator's dependencies (gRPC, etcd, Kubernetes'
// client, OpenTelemetry: some ninety modules, minutes to compile) stay out
// of ratebench's: run it with `cd algorithms/products/gubernatorcheck && go test`.
package gubernatorcheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	guber "github.com/gubernator-io/gubernator/v2"
	"github.com/mailgun/holster/v4/clock"
	"google.golang.org/grpc"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products"
)

// request is one request of a trace: its time from the start, key and
// cost.
type request struct {
	at        time.Duration
	key, cost int64
}

// trace returns n requests on keys 0..keys-1 in bursts, each key at about
// 1.5 L per W: gaps drawn around W/L/keys/1.5, some a hundred times shorter, half of them on whole milliseconds
// (where a window's closed end and the millisecond clock tell), costs
// mostly 1, some 2 or 3, a few L+1.
func trace(rng *rand.Rand, r algorithms.Rule, keys, n int) []request {
	out := make([]request, 0, n)
	var at time.Duration
	for range n {
		gap := time.Duration(rng.ExpFloat64() * float64(r.W) / float64(r.L) / float64(keys) / 1.5)
		if rng.IntN(4) == 0 {
			gap /= 100
		}
		at += gap
		if rng.IntN(2) == 0 {
			at = at.Truncate(time.Millisecond)
		}
		cost := int64(1)
		switch k := rng.IntN(40); {
		case k == 0:
			cost = r.L + 1
		case k < 6:
			cost = 2 + int64(k%2)
		}
		out = append(out, request{at, int64(rng.IntN(keys)), cost})
	}
	return out
}

// The model decides as gubernator v2.13.0 (whose algorithms.go has the
// arithmetic of the version the model cites), request by request: one
// V1Instance that owns every key (its own peer), no store, its clock (the
// holster clock package every time it reads goes through) frozen and moved
// to each request's instant. A request is a RateLimitReq{Limit: L,
// Duration: W in ms, Hits: cost}; UNDER_LIMIT is an admission.
func TestGubernatorMatchesModule(t *testing.T) {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	clock.Freeze(start)
	defer clock.Unfreeze()
	s, err := guber.NewV1Instance(guber.Config{GRPCServers: []*grpc.Server{grpc.NewServer()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetPeers([]guber.PeerInfo{{GRPCAddress: "127.0.0.1:1", IsOwner: true}})
	rng := rand.New(rand.NewPCG(43, 1))
	now := start
	run := 0
	for _, rule := range []string{"5/1s", "10/10s", "3/2s", "100/1m", "7/1500ms", "15/1s"} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		for _, alg := range []guber.Algorithm{guber.Algorithm_TOKEN_BUCKET, guber.Algorithm_LEAKY_BUCKET} {
			run++
			spec := "gubernator"
			if alg == guber.Algorithm_LEAKY_BUCKET {
				spec = "gubernator:algorithm=leaky"
			}
			model, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			// Beside the model, the model with each deviation off, to tell
			// how many decisions each changes on the trace.
			var variants []algorithms.Limiter
			for _, d := range model.(algorithms.Product).Deviations() {
				v, err := algorithms.New(spec+":without="+d.Name, r)
				if err != nil {
					t.Fatal(err)
				}
				v.Grow(8)
				variants = append(variants, v)
			}
			wrong := make([]int, len(variants))
			model.Grow(8)
			// Each run starts a day after the last, on a whole second, with
			// keys of its own.
			base := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
			admitted := 0
			tr := trace(rng, r, 5, 3000)
			for i, q := range tr {
				at := base.Add(q.at)
				clock.Advance(at.Sub(now))
				now = at
				resp, err := s.GetRateLimits(context.Background(), &guber.GetRateLimitsReq{Requests: []*guber.RateLimitReq{{
					Name: "check", UniqueKey: fmt.Sprint(run, "-", q.key), Hits: q.cost, Limit: r.L,
					Duration: r.W / int64(time.Millisecond), Algorithm: alg,
				}}})
				if err != nil || resp.Responses[0].Error != "" {
					t.Fatalf("%s %s request %d: %v %v", spec, rule, i, err, resp)
				}
				real := resp.Responses[0].Status == guber.Status_UNDER_LIMIT
				got := model.Decide(int32(q.key), at.UnixNano(), q.cost)
				if got {
					model.Record(int32(q.key), at.UnixNano(), q.cost)
					admitted++
				}
				for j, v := range variants {
					ok := v.Decide(int32(q.key), at.UnixNano(), q.cost)
					if ok {
						v.Record(int32(q.key), at.UnixNano(), q.cost)
					}
					if ok != real {
						wrong[j]++
					}
				}
				if got != real {
					t.Fatalf("%s %s, request %d (key %d, %s after the start, cost %d): the model admits %v, gubernator %v", spec, rule, i, q.key, q.at, q.cost, got, real)
				}
			}
			if admitted == 0 || admitted == len(tr) {
				t.Fatalf("%s %s: %d of %d admitted: the trace does not exercise the limit", spec, rule, admitted, len(tr))
			}
			var off []string
			for j, v := range variants {
				off = append(off, fmt.Sprintf("%s %d", v.Name()[strings.LastIndex(v.Name(), "=")+1:], wrong[j]))
			}
			t.Logf("%s %s: %d requests, the same decisions (%d admitted); decisions that differ with a deviation off: %s", spec, rule, len(tr), admitted, strings.Join(off, ", "))
		}
	}
}
