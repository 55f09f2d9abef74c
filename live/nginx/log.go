package nginx

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Logged is one line of nginx's access log.
type Logged struct {
	ID     int
	Status int
	MsecMS int64 // $msec in ms: the wall clock
	Conn   int64 // $connection
	ConnMS int64 // $connection_time in ms: ngx_current_msec - the connection's start
	Line   int   // the line number, 1-based: nginx's order of decision
}

// ParseLog reads nginx's access log of logFormat; a last line not yet
// ended (being written) is left out.
func ParseLog(path string) ([]Logged, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var out []Logged
	for n, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if text == "" && len(data) == 0 {
			break
		}
		line := n + 1
		fs := strings.Fields(text)
		if len(fs) != 7 {
			return nil, fmt.Errorf("%s:%d: want 7 fields, got %q", path, line, text)
		}
		var l Logged
		var errs [5]error
		l.Line = line
		l.ID, errs[0] = strconv.Atoi(fs[0])
		l.Status, errs[1] = strconv.Atoi(fs[1])
		l.MsecMS, errs[2] = parseMS(fs[2])
		l.Conn, errs[3] = strconv.ParseInt(fs[3], 10, 64)
		l.ConnMS, errs[4] = parseMS(fs[5])
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// parseMS reads nginx's "S.mmm" as whole ms.
func parseMS(s string) (int64, error) {
	sec, ms, ok := strings.Cut(s, ".")
	if !ok || len(ms) != 3 {
		return 0, fmt.Errorf("time %q: want seconds with three decimals", s)
	}
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(ms, 10, 64)
	if err1 != nil || err2 != nil || a < 0 {
		return 0, fmt.Errorf("time %q: want seconds with three decimals", s)
	}
	return a*1000 + b, nil
}
