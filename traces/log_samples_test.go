package traces

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The log samples of traces/samples (alb.log, cloudfront.log, iis.log,
// haproxy.log) are synthetic, written by logSamples below in each format as
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

const cloudFrontFields = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end"

func cloudFrontSample() []byte {
	rng := rand.New(rand.NewPCG(2, 2))
	var b bytes.Buffer
	b.WriteString("#Version: 1.0\n#Fields: " + cloudFrontFields + "\n")
	const id = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for _, h := range sampleTraffic(2, 300, 2*time.Second) {
		status := sampleStatus(rng)
		result := "Hit"
		if rng.IntN(3) == 0 {
			result = "Miss"
		}
		if status >= 500 {
			result = "Error"
		}
		reqID := make([]byte, 56)
		for i := range reqID {
			reqID[i] = id[rng.IntN(len(id))]
		}
		query := "-"
		if h.page == 12 {
			query = fmt.Sprintf("q=item%d", rng.IntN(100))
		}
		agent := strings.ReplaceAll(sampleAgents[h.client%len(sampleAgents)], " ", "%20")
		tt := 0.001 + rng.Float64()/5
		f := []string{h.t.Format("2006-01-02"), h.t.Format("15:04:05"), []string{"IAD89-C1", "IAD89-C2", "FRA56-P4"}[h.client%3],
			fmt.Sprint(300 + rng.IntN(20000)), sampleIPs[h.client], "GET", "d111111abcdef8.cloudfront.net", samplePages[h.page],
			fmt.Sprint(status), "-", agent, query, "-", result, string(reqID), "www.example.com", "https", fmt.Sprint(100 + rng.IntN(400)),
			fmt.Sprintf("%.3f", tt), "-", "TLSv1.3", "TLS_AES_128_GCM_SHA256", result, "HTTP/2.0", "-", "-",
			fmt.Sprint(1024 + rng.IntN(64000)), fmt.Sprintf("%.3f", tt*0.9), result, "text/html", fmt.Sprint(2000 + rng.IntN(9000)), "-", "-"}
		b.WriteString(strings.Join(f, "\t") + "\n")
	}
	return b.Bytes()
}

func iisSample() []byte {
	rng := rand.New(rand.NewPCG(3, 3))
	var b bytes.Buffer
	header := func(t time.Time) {
		fmt.Fprintf(&b, "#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n#Date: %s\n"+
			"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n",
			t.Format("2006-01-02 15:04:05"))
	}
	users := []string{"-", "-", "-", "CONTOSO\\alice", "CONTOSO\\bob", "-", "CONTOSO\\carol"}
	for i, h := range sampleTraffic(3, 300, 3*time.Second) {
		if i == 0 || i == 180 { // IIS starts the file, and again after a restart
			header(h.t.Truncate(time.Second))
		}
		query := "-"
		if h.page == 12 {
			query = fmt.Sprintf("q=item%d", rng.IntN(100))
		}
		status := sampleStatus(rng)
		fmt.Fprintf(&b, "%s 10.0.0.5 GET %s %s 443 %s %s %s %s %d 0 0 %d\n", h.t.Format("2006-01-02 15:04:05"), samplePages[h.page], query,
			users[h.client%len(users)], sampleIPs[h.client], strings.ReplaceAll(sampleAgents[h.client%len(sampleAgents)], " ", "+"),
			"https://www.example.com/", status, 1+rng.IntN(400))
	}
	return b.Bytes()
}

func haproxySample() []byte {
	rng := rand.New(rand.NewPCG(4, 4))
	type line struct {
		at   time.Time // when HAProxy logs it: once the response is sent
		text string
	}
	var lines []line
	last := map[int]time.Time{} // a client's requests follow each other
	for _, h := range sampleTraffic(4, 300, 3*time.Second) {
		tq, tw, tc, tr := rng.IntN(20), 0, rng.IntN(3), 5+rng.IntN(300)
		ta := tq + tw + tc + tr + rng.IntN(5)
		accept := h.t.Truncate(time.Millisecond)
		if l, ok := last[h.client]; ok && accept.Before(l) {
			accept = l
		}
		done := accept.Add(time.Duration(ta) * time.Millisecond)
		last[h.client] = done
		status := sampleStatus(rng)
		server := fmt.Sprintf("web%d", 1+rng.IntN(3))
		if status == 502 {
			tr, server = -1, "<NOSRV>"
		}
		query := ""
		if h.page == 12 {
			query = fmt.Sprintf("?q=item%d", rng.IntN(100))
		}
		text := fmt.Sprintf("%s lb1 haproxy[2841]: %s:%d [%s] https-in~ shop/%s %d/%d/%d/%d/%d %d %d - - ---- %d/%d/%d/%d/0 0/0 {www.example.com|%s} {} \"GET %s%s HTTP/1.1\"",
			done.Format(time.Stamp), sampleIPs[h.client], 1024+rng.IntN(64000), accept.Format("02/Jan/2006:15:04:05.000"), server,
			tq, tw, tc, tr, ta, status, 300+rng.IntN(20000), 1+rng.IntN(20), 1+rng.IntN(20), rng.IntN(10), rng.IntN(5),
			sampleAgents[h.client%len(sampleAgents)], samplePages[h.page], query)
		lines = append(lines, line{done, text})
	}
	// In the order HAProxy writes them: of the responses.
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].at.Before(lines[j-1].at); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.Bytes()
}

// The samples of line formats that only -pattern, -ts-format and a -sep
// of several characters read, each with the same requests in a plain
// ts,key CSV (testdata/lines), which they must read as.

// ampmSample is a table with times of the minute in a 12-hour clock and
// fields separated by " | ", from before noon to the afternoon.
func ampmSample() (sample, plain []byte) {
	rng := rand.New(rand.NewPCG(5, 5))
	var b, p bytes.Buffer
	b.WriteString("time | client | path | status\n")
	p.WriteString("ts,key\n")
	for _, h := range sampleTraffic(5, 600, 30*time.Second) {
		at := h.t.Add(110 * time.Minute).Truncate(time.Minute)
		fmt.Fprintf(&b, "%s | %s | %s | %d\n", at.Format("02.01.2006 03:04 PM"), sampleIPs[h.client], samplePages[h.page], sampleStatus(rng))
		fmt.Fprintf(&p, "%d,%s\n", at.Unix(), sampleIPs[h.client])
	}
	return b.Bytes(), p.Bytes()
}

// ctimeSample is an application log of lines "client: ctime date (path):
// status bytes", its times of the second.
func ctimeSample() (sample, plain []byte) {
	rng := rand.New(rand.NewPCG(6, 6))
	var b, p bytes.Buffer
	p.WriteString("ts,key\n")
	shift := time.Date(1995, 8, 22, 0, 0, 0, 0, time.UTC).Sub(time.Date(2024, 2, 9, 10, 0, 0, 0, time.UTC))
	for _, h := range sampleTraffic(6, 600, 2*time.Second) {
		at := h.t.Add(shift).Truncate(time.Second)
		fmt.Fprintf(&b, "%s: %s (%s): %d %d\n", sampleIPs[h.client], at.Format(time.ANSIC), samplePages[h.page], sampleStatus(rng), 200+rng.IntN(9000))
		fmt.Fprintf(&p, "%d,%s\n", at.Unix(), sampleIPs[h.client])
	}
	return b.Bytes(), p.Bytes()
}

// logSamples are the log samples of samples/ (and the plain CSVs of
// testdata/lines), by path under this package.
func logSamples() map[string][]byte {
	ampm, ampmPlain := ampmSample()
	ctime, ctimePlain := ctimeSample()
	return map[string][]byte{"samples/alb.log": albSample(), "samples/cloudfront.log": cloudFrontSample(), "samples/iis.log": iisSample(),
		"samples/haproxy.log": haproxySample(), "samples/ampm.txt": ampm, "testdata/lines/ampm.csv": ampmPlain,
		"samples/ctime.txt": ctime, "testdata/lines/ctime.csv": ctimePlain}
}

func TestLogSamplesAreCurrent(t *testing.T) {
	for name, data := range logSamples() {
		path := filepath.FromSlash(name)
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

// The line samples read, by their flags, as exactly the requests of their
// plain CSVs.
func TestLineSamplesReadAsPlainCSV(t *testing.T) {
	for _, tt := range []struct {
		sample, plain string
		opt           Options
	}{
		{"samples/ampm.txt", "testdata/lines/ampm.csv", Options{MultiSep: " | ", TS: "time", Key: "client", TSFormat: "%d.%m.%Y %I:%M %p"}},
		{"samples/ampm.txt", "testdata/lines/ampm.csv", Options{MultiSep: " | ", TS: "time", Key: "client", TSFormat: "02.01.2006 03:04 PM"}},
		{"samples/ctime.txt", "testdata/lines/ctime.csv", Options{Pattern: `^(?P<key>\S+): (?P<ts>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) \(`, TSFormat: "%a %b %e %H:%M:%S %Y"}},
		{"samples/ctime.txt", "testdata/lines/ctime.csv", Options{Pattern: `^(?P<key>\S+): (?P<ts>.{24}) \(`, TSFormat: time.ANSIC}},
	} {
		got, err := readFile(tt.sample, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := readFile(tt.plain, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 600 || !equalRequests(got, want) {
			t.Errorf("%s (%+v): %d requests, not the %d of %s", tt.sample, tt.opt, len(got), len(want), tt.plain)
		}
	}
}

func readFile(path string, opt Options) ([]Request, error) {
	r, err := Open(path, FormatAuto, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}
