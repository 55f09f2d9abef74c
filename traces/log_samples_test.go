package traces

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The log samples of traces/samples (alb.log) are synthetic, written by logSamples below in each format as
// its software writes it. go test ./traces -run TestLogSamplesAreCurrent
// -update-samples rewrites them.

var updateSamples = flag.Bool("update-samples", false, "rewrite the log samples of samples/ from logSamples")

// sampleTraffic is the traffic of every log sample: n requests from a few
// dozen clients, some much busier than others and one (the first) in
// bursts, at times that only go forward, from 2024-02-09 10:00:00 UTC.
type sampleHit struct {
	t      time.Time
	client int
	page   int
}

var (
	sampleIPs = []string{"203.0.113.7", "198.51.100.23", "192.0.2.44", "2001:db8:85a3::8a2e:370:7334", "203.0.113.150",
		"198.51.100.9", "192.0.2.201", "2600:1f18:4a3:6901:1b2c:3d4e:5f60:7a8b", "203.0.113.88", "198.51.100.77",
		"192.0.2.13", "203.0.113.31", "198.51.100.140", "2001:db8::1", "192.0.2.99", "203.0.113.254",
		"198.51.100.4", "192.0.2.150", "203.0.113.66", "198.51.100.200"}
	samplePages = []string{"/", "/index.html", "/products", "/products/1234", "/products/5678", "/cart", "/checkout",
		"/api/v1/items", "/api/v1/items/42", "/static/app.js", "/static/style.css", "/images/logo.png", "/search", "/login"}
	sampleAgents = []string{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_3) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15",
		"curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0", "python-requests/2.31.0"}
)

func sampleTraffic(seed uint64, n int, step time.Duration) []sampleHit {
	rng := rand.New(rand.NewPCG(seed, 14))
	t := time.Date(2024, 2, 9, 10, 0, 0, 0, time.UTC)
	hits := make([]sampleHit, 0, n)
	for len(hits) < n {
		t = t.Add(time.Duration(rng.Int64N(int64(step))))
		if rng.IntN(12) == 0 { // a burst of the first client
			for range 5 + rng.IntN(10) {
				t = t.Add(time.Duration(rng.Int64N(int64(step / 8))))
				hits = append(hits, sampleHit{t, 0, 7 + rng.IntN(2)})
			}
			continue
		}
		c := int(float64(len(sampleIPs)) * rng.Float64() * rng.Float64()) // busier clients first
		hits = append(hits, sampleHit{t, c, rng.IntN(len(samplePages))})
	}
	return hits[:n]
}

func sampleStatus(rng *rand.Rand) int {
	switch r := rng.IntN(40); {
	case r == 0:
		return 502
	case r < 3:
		return 404
	case r < 7:
		return 304
	}
	return 200
}

func albSample() []byte {
	rng := rand.New(rand.NewPCG(1, 1))
	var b bytes.Buffer
	for i, h := range sampleTraffic(1, 300, 3*time.Second) {
		typ := "https"
		if i%9 == 4 {
			typ = "h2"
		} else if i%13 == 7 {
			typ = "http"
		}
		status := sampleStatus(rng)
		reqT, targT, respT := 0.0001+rng.Float64()/1000, 0.001+rng.Float64()/10, 0.00002+rng.Float64()/10000
		target, targetStatus, targetTime := fmt.Sprintf("10.0.1.%d:80", 10+i%4), fmt.Sprint(status), fmt.Sprintf("%.3f", targT)
		if status == 502 {
			targetStatus, targetTime = "-", "-1"
		}
		created := h.t.Add(-time.Duration((reqT + targT + respT) * 1e9))
		port, scheme, cipher, proto := 443, "https", "ECDHE-RSA-AES128-GCM-SHA256", "TLSv1.2"
		if typ == "http" {
			port, scheme, cipher, proto = 80, "http", "-", "-"
		}
		query := ""
		if h.page == 12 {
			query = fmt.Sprintf("?q=item%d", rng.IntN(100))
		}
		fmt.Fprintf(&b, `%s %s app/shop-alb/50dc6c495c0c9188 %s:%d %s %.3f %s %.3f %d %s %d %d "GET %s://shop.example.com:%d%s%s HTTP/1.1" "%s" %s %s arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/shop-tg/73e2d6bc24d8a067 "Root=1-%08x-%08x%016x" "shop.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 %s "forward" "-" "-" "%s" "%s" "-" "-" TID_%016x%016x`+"\n",
			typ, h.t.Format("2006-01-02T15:04:05.000000Z"), sampleIPs[h.client], 1024+rng.IntN(64000), target,
			reqT, targetTime, respT, status, targetStatus, 200+rng.IntN(600), 300+rng.IntN(20000),
			scheme, port, samplePages[h.page], query, sampleAgents[h.client%len(sampleAgents)], cipher, proto,
			h.t.Unix(), rng.Uint32(), rng.Uint64(), created.Format("2006-01-02T15:04:05.000000Z"), target, targetStatus, rng.Uint64(), rng.Uint64())
	}
	return b.Bytes()
}

// logSamples are the log samples of samples/, by file name.
func logSamples() map[string][]byte {
	return map[string][]byte{"alb.log": albSample()}
}

func TestLogSamplesAreCurrent(t *testing.T) {
	for name, data := range logSamples() {
		path := filepath.Join("samples", name)
		if *updateSamples {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what logSamples writes (go test ./traces -run TestLogSamplesAreCurrent -update-samples)", path)
		}
	}
}
