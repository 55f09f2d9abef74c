package livenginx

import (
	"fmt"
	"net"
	"strconv"

	"ratebench/algorithms"
)

// Validate reports, before nginx is started or a request sent, what would
// stop the replay or its analysis afterwards: a rate nginx cannot express
// at the speed (Scaled), or a burst its model refuses (too large for
// nginx's milli-request arithmetic), or a listen address off the
// loopback.
func (c Config) Validate() error {
	if c.Listen != "" {
		if _, _, err := listenAddr(c.Listen); err != nil {
			return err
		}
	}
	rate, err := c.Scaled()
	if err != nil {
		return err
	}
	if _, err := algorithms.New(ModelSpec(rate, c.burst()), c.Rule); err != nil {
		return fmt.Errorf("-burst %d: %v", c.burst(), err)
	}
	return nil
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
