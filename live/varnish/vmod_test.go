package varnish

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// The installed vmod itself, driven on the trace's clock: testdata/drive.c
// loads libvmod_vsthrottle.so with varnishd's VTIM_mono replaced by the
// request's time (read as VTIM_mono reads the clock) and calls
// vmod_is_denied for each request. On whole-millisecond traces, where the
// refill often lands on a whole number of tokens, the model decides every
// request as the vmod does, float roundings included, and each deviation
// turned off decides some request otherwise.
func TestVmodOnTheTraceClockAgreesWithModel(t *testing.T) {
	requireVarnish(t)
	drive := buildDrive(t)
	vmod := vmodPath(t)
	ms := int64(time.Millisecond)
	told := map[string]int{}
	for _, c := range []struct {
		rule string
		ban  int64
	}{
		{"5/1s", 0}, {"10/3s", 0}, {"7/9ms", 0}, {"100/1m", 0}, {"3/250ms", 0},
		{"5/1s", 2000 * ms}, {"5/1s", 500 * ms}, {"3/250ms", 9 * ms},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		v, err := products.NewVsthrottle(r, c.ban)
		if err != nil {
			t.Fatal(err)
		}
		for _, origin := range []int64{0, 86_400_123_456_789} { // a clock booted with the trace, and one up for a day
			rng := rand.New(rand.NewPCG(uint64(r.W), uint64(origin)))
			keys, times := wholeMsTrace(rng, r, origin, 3000)
			real := driveVmod(t, drive, vmod, r, c.ban, keys, times)
			admitted := 0
			for _, a := range real {
				if a {
					admitted++
				}
			}
			if admitted == 0 || admitted == len(real) {
				t.Errorf("%s origin %d: the vmod admits %d of %d: the trace does not cross the limit", c.rule, origin, admitted, len(real))
			}
			model := replayKeys(t, v.Name(), r, keys, times)
			for i := range real {
				if real[i] != model[i] {
					t.Fatalf("%s origin %d: request %d (%s at %d ns): the vmod admits %v, %s %v", c.rule, origin, i+1, keys[i], times[i], real[i], v.Name(), model[i])
				}
			}
			for _, d := range v.Deviations() {
				other := replayKeys(t, v.Name()+":without="+d.Name, r, keys, times)
				for i := range real {
					if other[i] != real[i] {
						told[d.Name]++
					}
				}
			}
		}
	}
	t.Logf("requests each deviation turned off decides otherwise than the vmod: %v", told)
	for _, d := range []string{"refill-truncation", "float", "blocked-takes"} {
		if told[d] == 0 {
			t.Errorf("%s off decides every request as the vmod: the check does not tell it", d)
		}
	}
}

// wholeMsTrace returns n requests of 3 keys on whole milliseconds from
// origin, each key near its limit: bursts, gaps of whole multiples of W/L
// (where the refill is a whole number of tokens) and others, and pauses.
func wholeMsTrace(rng *rand.Rand, r algorithms.Rule, origin int64, n int) (keys []string, times []int64) {
	ms := int64(time.Millisecond)
	step := max(r.W/r.L/ms, 1) * ms // about W/L
	type req struct {
		t   int64
		key string
	}
	var all []req
	for k := range 3 {
		now := origin
		for range n / 3 {
			switch x := rng.IntN(20); {
			case x < 6: // same instant
			case x < 12:
				now += rng.Int64N(3) * step
			case x < 19 || rng.Int64N(r.L) > 0:
				now += rng.Int64N(2*step/ms+1) * ms
			default: // a pause long enough to refill the bucket, now and then
				now += rng.Int64N(2*r.W/ms+1) * ms
			}
			all = append(all, req{now, "k" + strconv.Itoa(k)})
		}
	}
	slices.SortStableFunc(all, func(a, b req) int { return cmp.Compare(a.t, b.t) })
	for _, q := range all {
		keys, times = append(keys, q.key), append(times, q.t)
	}
	return keys, times
}

func replayKeys(t *testing.T, spec string, r algorithms.Rule, keys []string, times []int64) []bool {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int32{}
	out := make([]bool, len(keys))
	for i, k := range keys {
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
			l.Grow(len(ids))
		}
		if out[i] = l.Decide(id, times[i], 1); out[i] {
			l.Record(id, times[i], 1)
		}
	}
	return out
}

// buildDrive compiles testdata/drive.c (varnish depends on gcc, which
// compiles its VCL).
func buildDrive(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatalf("no C compiler to build the vmod's driver (varnishd needs one too): %v; install gcc", err)
	}
	out := filepath.Join(t.TempDir(), "drive")
	if b, err := exec.Command(cc, "-O2", "-rdynamic", "-Wl,--version-script=testdata/drive.map", "-o", out, "testdata/drive.c", "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("building the vmod's driver: %v: %s", err, b)
	}
	return out
}

// vmodPath finds the installed libvmod_vsthrottle.so.
func vmodPath(t *testing.T) string {
	t.Helper()
	found, _ := filepath.Glob("/usr/lib/*/varnish/vmods/libvmod_vsthrottle.so")
	if len(found) == 0 {
		t.Fatalf("libvmod_vsthrottle.so not found in /usr/lib/*/varnish/vmods; install %s", Requires)
	}
	return found[0]
}

// vccArgs are a duration literal as the VCL compiler emits it: the number
// with three decimals and the unit ("%.3f * %g"), for drive to multiply.
func vccArgs(t *testing.T, d int64) []string {
	t.Helper()
	lit, _, err := products.VCLDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	num, unit := strings.TrimSuffix(lit, "s"), "1"
	if strings.HasSuffix(lit, "ms") {
		num, unit = strings.TrimSuffix(lit, "ms"), "0.001"
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatal(err)
	}
	return []string{strconv.FormatFloat(v, 'f', 3, 64), unit}
}

// driveVmod asks the vmod about each request, at its time.
func driveVmod(t *testing.T, drive, vmod string, r algorithms.Rule, ban int64, keys []string, times []int64) []bool {
	t.Helper()
	args := append([]string{vmod, strconv.FormatInt(r.L, 10)}, vccArgs(t, r.W)...)
	if ban != 0 {
		args = append(args, vccArgs(t, ban)...)
	}
	var in bytes.Buffer
	for i := range keys {
		fmt.Fprintf(&in, "%s %d\n", keys[i], times[i])
	}
	cmd := exec.Command(drive, args...)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("drive %v: %v: %s", args, err, stderr.String())
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(keys) {
		t.Fatalf("drive answered %d of %d requests: %s", len(lines), len(keys), stderr.String())
	}
	admit := make([]bool, len(lines))
	for i, l := range lines {
		admit[i] = l == "0"
	}
	return admit
}
