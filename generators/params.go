package generators

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultStart is the time of the first window of generated traces,
// 2024-01-01T00:00:00Z: a multiple of every window of a whole number of
// seconds, so that window edges fall where the scenarios aim them.
const DefaultStart = int64(1_704_067_200) * int64(time.Second)

// Params are the parameters every scenario shares. The zero value of a
// field means its default (see Defaults).
type Params struct {
	Requests int64         // stop after this many requests (default 100,000; with Duration, whichever comes first)
	Duration time.Duration // stop at Start+Duration (default: no limit)
	Keys     int           // number of sources (default 100)
	Rate     float64       // mean requests per second per key (default 0.2)
	Window   time.Duration // the window that edge-aware scenarios aim at (default 30s)
	Seed     uint64        // random seed (default 1)
	Start    int64         // time of the first request window, ns (default DefaultStart)
}

// Defaults returns p with its zero fields set to their defaults. Other
// values are left as they are, for New to check.
func (p Params) Defaults() Params {
	if p.Requests == 0 {
		p.Requests = 100_000
	}
	if p.Keys == 0 {
		p.Keys = 100
	}
	if p.Rate == 0 {
		p.Rate = 0.2
	}
	if p.Window == 0 {
		p.Window = 30 * time.Second
	}
	if p.Seed == 0 {
		p.Seed = 1
	}
	if p.Start == 0 {
		p.Start = DefaultStart
	}
	return p
}

// Param is one scenario-specific parameter, for -list and for parsing
// "name:param=value,...".
type Param struct {
	Name    string
	Default float64
	About   string
	// The values it accepts: from Min to Max, whole numbers only if Whole
	// (Max noMax: no bound but those its scenario's load sets).
	Min, Max float64
	Whole    bool
}

// values holds a scenario's parameters by name, defaults filled in.
type values map[string]float64

// parseSpec splits "name:k=v,k=v" into the scenario name, overrides of the
// common Params, and the scenario's own parameters.
func parseSpec(spec string, p Params) (string, Params, map[string]string, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	own := map[string]string{}
	if rest == "" {
		return name, p, own, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || v == "" {
			return "", p, nil, fmt.Errorf("scenario %q: %q is not param=value", spec, kv)
		}
		var err error
		bad := ""
		switch k {
		case "requests":
			if p.Requests, err = parseCount(v); err == nil {
				bad = badRequests(p.Requests)
			}
		case "keys", "sources":
			var n int64
			if n, err = parseCount(v); err == nil {
				if bad = badKeys(n); bad == "" {
					p.Keys = int(n)
				}
			}
		case "rate":
			if p.Rate, err = strconv.ParseFloat(v, 64); err == nil {
				bad = badRate(p.Rate)
			}
		case "window":
			if p.Window, err = time.ParseDuration(v); err == nil {
				bad = badWindow(p.Window, DefaultStart)
			}
		case "duration":
			if p.Duration, err = time.ParseDuration(v); err == nil {
				bad = badDuration(p.Duration)
			}
		case "seed":
			if p.Seed, err = strconv.ParseUint(v, 10, 64); err == nil {
				bad = badSeed(p.Seed)
			}
		default:
			own[k] = v
			continue
		}
		if err != nil {
			return "", p, nil, fmt.Errorf("scenario %q: %s=%s: %v", spec, k, shown(v), plainErr(err))
		}
		if bad != "" {
			return "", p, nil, fmt.Errorf("scenario %q: %s=%s: %s", spec, k, shown(v), bad)
		}
	}
	return name, p, own, nil
}

// parseCount reads a whole number, allowing 1e6 and 400_000_000 forms.
func parseCount(s string) (int64, error) {
	s = strings.ReplaceAll(s, "_", "")
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(math.Abs(f) <= maxWhole) || f != math.Trunc(f) {
		return 0, fmt.Errorf("not a whole number (at most %d)", int64(maxWhole))
	}
	return int64(f), nil
}

// shown is a value as an error message gives it: as written when it is a
// plain number or word, quoted otherwise.
func shown(s string) string {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.ContainsRune(".+-_", c)) {
			return strconv.Quote(s)
		}
	}
	return s
}

// plainErr is the reason of a strconv or time parse error, without the
// function name and the value that the caller's message already gives.
func plainErr(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

// resolve checks the scenario's own parameters against its declared ones
// and fills in defaults.
func resolve(sc *Scenario, own map[string]string) (values, error) {
	v := values{}
	for _, p := range sc.Params {
		v[p.Name] = p.Default
	}
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := v[k]; !ok {
			return nil, fmt.Errorf("scenario %s has no parameter %q (see ratebench gen -list)", sc.Name, k)
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(own[k], "_", ""), 64)
		if err != nil {
			if d, derr := time.ParseDuration(own[k]); derr == nil {
				f, err = d.Seconds(), nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %s=%s is not a number", sc.Name, k, shown(own[k]))
		}
		if err := sc.param(k).check(f); err != nil {
			return nil, fmt.Errorf("scenario %s: %s=%s: %v", sc.Name, k, shown(own[k]), err)
		}
		v[k] = f
	}
	return v, nil
}

// param returns the parameter called name.
func (sc *Scenario) param(name string) Param {
	for _, p := range sc.Params {
		if p.Name == name {
			return p
		}
	}
	panic("generators: no parameter " + name)
}
