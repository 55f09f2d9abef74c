package generators

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// parseMix reads mix weights ("poisson=0.7,boundary=0.3", already split
// into own) and shares keys among the scenarios in proportion. A parameter
// written scenario.param=value ("boundary.burst=5") sets that scenario's
// parameter; the others keep their defaults. Shares are rounded by largest
// remainder, so they sum to keys exactly; the scenarios come in name order.
func parseMix(own map[string]string, keys int) ([]part, error) {
	params := map[string]map[string]string{}
	shares := map[string]string{}
	for k, v := range own {
		if sc, param, ok := strings.Cut(k, "."); ok {
			if params[sc] == nil {
				params[sc] = map[string]string{}
			}
			params[sc][param] = v
		} else {
			shares[k] = v
		}
	}
	for sc := range params {
		if _, ok := shares[sc]; !ok {
			return nil, fmt.Errorf("mix: parameters for %s, which has no weight", sc)
		}
	}
	own = shares
	if len(own) == 0 {
		return nil, fmt.Errorf("mix: name the scenarios and their weights, e.g. mix:poisson=0.7,boundary=0.3")
	}
	names := make([]string, 0, len(own))
	for n := range own {
		names = append(names, n)
	}
	sort.Strings(names)
	var total float64
	weights := make([]float64, len(names))
	for i, n := range names {
		if n == "mix" {
			return nil, fmt.Errorf("mix: a mix cannot contain a mix")
		}
		if _, err := Lookup(n); err != nil {
			return nil, fmt.Errorf("mix: %v", err)
		}
		w, err := strconv.ParseFloat(own[n], 64)
		if err != nil || !(w > 0 && w <= math.MaxFloat64) {
			return nil, fmt.Errorf("mix: %s=%s: a weight must be a number above 0 (and finite)", n, shown(own[n]))
		}
		weights[i] = w
		total += w
	}
	if math.IsInf(total, 0) {
		return nil, fmt.Errorf("mix: the weights add up past the largest number; give smaller ones (only their ratios count)")
	}
	parts := make([]part, len(names))
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	given := 0
	for i, n := range names {
		exact := weights[i] / total * float64(keys)
		parts[i] = part{sc: scenarios[n], keys: int(exact)}
		given += int(exact)
		rems = append(rems, rem{i, exact - math.Floor(exact)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; given < keys; j++ {
		parts[rems[j%len(rems)].i].keys++
		given++
	}
	for i := range parts {
		v, err := resolve(parts[i].sc, params[parts[i].sc.Name])
		if err != nil {
			return nil, fmt.Errorf("mix: %v", err)
		}
		parts[i].v = v
	}
	return parts, nil
}
