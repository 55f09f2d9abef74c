package products

import (
	"fmt"
	"strconv"
	"strings"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "aws-api-gateway[:burst=N]", Place: 31, About: "Amazon API Gateway throttling (ThrottlingRateLimit L/W per second, ThrottlingBurstLimit N, default L), model only: a token bucket, one token per request",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewAWSAPIGateway(r, c.Arg, c.HasArg)
		}})
}

// AWSAPIGateway is Amazon API Gateway's throttling of a stage, route or
// method (or a usage plan's API key), modelled from its documentation,
// "Throttle requests to your REST APIs for better throughput in API
// Gateway" and "Throttling requests to your HTTP API" (Amazon API Gateway
// Developer Guide, docs.aws.amazon.com/apigateway/latest/developerguide/
// api-gateway-request-throttling.html and http-api-throttling.html). No
// such service runs here: the model is what the documentation says, and
// where it leaves a choice open the model says which it takes.
//
// The rule "L requests per W" is the throttle's steady-state rate,
// ThrottlingRateLimit (rateLimit in a usage plan) = L/W requests per
// second, with ThrottlingBurstLimit (burstLimit) = N, default L: the
// "aws-api-gateway:burst=N" spec sets it.
//
// # What the documentation says
//
// "API Gateway throttles requests to your API using the token bucket
// algorithm, where a token counts for a request." The burst is "the
// maximum bucket size"; "When request submissions exceed the steady-state
// request rate and burst limits, API Gateway begins to throttle requests"
// (429 Too Many Requests). And: "Throttles are applied on a best-effort
// basis and should be thought of as targets rather than guaranteed
// request ceilings"; "a burst can allow pre-defined overrun of those
// limits, but other factors can also cause limits to be overrun in some
// cases".
//
// # What the model assumes
//
//   - The bucket: N tokens, full at the key's first request, refilled
//     continuously at L/W tokens per second up to N, exactly (rationals on
//     the trace's nanosecond clock); a request is admitted iff a token is
//     there, and takes it. The documentation gives no refill step, clock
//     or arithmetic; the rate is a double in the API, which the model
//     takes as the exact L/W.
//   - "Best effort" is not modelled: the service's bucket is shared by
//     the servers of a Region, which may each admit before they see the
//     others' requests, and so let more through than the bucket; the
//     model is one bucket seeing every request of the key in order, the
//     decision the documentation describes and the least the service
//     admits past the target is nothing.
//   - A throttled request takes no token (it is answered 429, not
//     served).
//   - No idle expiry: a bucket idle long enough is full, which is a new
//     bucket's state, so keeping or dropping it changes no decision.
//
// # Deviation from token (token:B=N)
//
//   - one-hit: "a token counts for a request": a request takes one token
//     whatever its cost (off: it takes cost tokens, as the twin).
//
// Memory: the tokens and the time of the last refill, 16 bytes per key,
// as the twin.
type AWSAPIGateway struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	burst int64
	named bool
	tk    *algorithms.Token
}

const awsAPIGatewayOneHit = 0

// NewAWSAPIGateway returns API Gateway's throttle for rule r; arg is the
// spec's parameter, "burst=N".
func NewAWSAPIGateway(r algorithms.Rule, arg string, hasArg bool) (*AWSAPIGateway, error) {
	g := &AWSAPIGateway{rule: r, burst: r.L}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "burst=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 1 || n > 1<<53 {
			return nil, fmt.Errorf("algorithm \"aws-api-gateway:%s\": want aws-api-gateway:burst=N with N, the ThrottlingBurstLimit, a whole number from 1 to %d", arg, int64(1)<<53)
		}
		g.burst, g.named = n, true
	}
	g.SetDeviations(algorithms.Deviation{Name: "one-hit", About: "a token counts for a request: one token per request whatever its cost"})
	g.tk = algorithms.NewToken(r, g.burst)
	return g, nil
}

func (g *AWSAPIGateway) Name() string {
	name := "aws-api-gateway"
	if g.named {
		name += ":burst=" + itoa(g.burst)
	}
	return name + g.Suffix()
}

// Twin is the token bucket of capacity N under the same rule.
func (g *AWSAPIGateway) Twin() string { return algorithms.BucketSpec("token", g.burst, g.rule) }

func (g *AWSAPIGateway) Grow(n int)                { g.tk.Grow(n) }
func (*AWSAPIGateway) Bytes(int32) int64           { return 16 }
func (*AWSAPIGateway) FixedSize() bool             { return true }
func (*AWSAPIGateway) CountsRejected() bool        { return false }
func (g *AWSAPIGateway) Place(b *algorithms.Block) { g.tk.Place(b) }
func (g *AWSAPIGateway) Warm(id int32) uint64      { return g.tk.Warm(id) }
func (g *AWSAPIGateway) Idle(id int32, t int64) bool {
	return g.tk.Idle(id, t)
}
func (g *AWSAPIGateway) Release(id int32) { g.tk.Release(id) }

// Decide admits iff the bucket holds a token (one-hit), or cost tokens.
func (g *AWSAPIGateway) Decide(id int32, t, cost int64) bool {
	return g.tk.Decide(id, t, oneHit(g.OnAt(awsAPIGatewayOneHit), cost))
}

// Record takes the request's token (one-hit) or cost tokens.
func (g *AWSAPIGateway) Record(id int32, t, cost int64) {
	g.tk.Record(id, t, oneHit(g.OnAt(awsAPIGatewayOneHit), cost))
}
