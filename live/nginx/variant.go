package nginx

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/live"
)

// limitOf returns the limit_req nginx is configured with for the trace's
// rule r at o.Speed with o.Variant: burst=N (default L-1, a bucket of L
// requests) and delay=N (with which excess requests within the burst are
// delayed beyond the first N; default nodelay, served at once).
func limitOf(r algorithms.Rule, o live.Options) (Limit, error) {
	rate, err := Scaled(r, o.Speed)
	if err != nil {
		return Limit{}, err
	}
	l := Limit{Rate: rate, Burst: r.L - 1, NoDelay: true}
	if o.Variant == "" {
		return l, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(o.Variant, ":") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if (k != "burst" && k != "delay") || seen[k] || err != nil || n < 0 {
			return Limit{}, fmt.Errorf("live nginx: variant %q: want burst=N and delay=N, each a whole number at most once", o.Variant)
		}
		seen[k] = true
		if k == "burst" {
			l.Burst = n
		} else {
			l.Delay, l.NoDelay = n, false
		}
	}
	return l, nil
}

// setup is what nginx was configured with beyond the zone's key, as its
// configuration writes it.
func (l Limit) setup() []string {
	out := []string{"rate=" + l.Rate, "burst=" + strconv.FormatInt(l.Burst, 10)}
	switch {
	case l.NoDelay:
		out = append(out, "nodelay")
	case l.Delay > 0:
		out = append(out, "delay="+strconv.FormatInt(l.Delay, 10))
	}
	return out
}

// listenAddr reads a listen address, host:port on an IPv4 loopback
// address (or localhost), into its IP and port.
func listenAddr(listen string) (string, int, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("-addr %q: want host:port", listen)
	}
	ip := net.ParseIP(host)
	if host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() || ip.To4() == nil {
		return "", 0, fmt.Errorf("-addr %q: a live replay sends only to an IPv4 loopback address (127.x.x.x)", listen)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return "", 0, fmt.Errorf("-addr %q: bad port", listen)
	}
	return ip.String(), p, nil
}
