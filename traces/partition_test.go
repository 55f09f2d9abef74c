package traces

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testPartOf splits keys into n parts by KeyHash, and with drop leaves the
// keys of one hash in three to no part.
func testPartOf(n int, drop bool) PartOf {
	return func(key []byte) (int, uint64) {
		h := KeyHash(key)
		if drop && h%3 == 0 {
			return -1, h
		}
		return int(h>>32) % n, h
	}
}

// partOutcome reads r in runs of n parts split by of, checking what every
// run says of itself (each request in the part of its key, with its hash,
// in trace order within the part; the run's count, latest time and times
// before each request), and returns what the reader told: the requests in
// trace order, as csvOutcomeOf has them, but those no part takes.
func partOutcome(t *testing.T, r Reader, n int, of PartOf) csvOutcome {
	t.Helper()
	p, ok := r.(Partitioner)
	if !ok || !p.Partition(n, of) {
		t.Fatalf("%T does not partition", r)
	}
	var o csvOutcome
	for run := p.NextRun(); run != nil; run = p.NextRun() {
		if run.Len() == 0 {
			t.Fatal("an empty run")
		}
		byAt := make([]string, run.Len())
		times := make([]int64, run.Len())
		taken := make([]bool, run.Len())
		for i := range n + 1 {
			part := &run.parts[i]
			for j := range part.T {
				at := part.At[j]
				if j > 0 && at <= part.At[j-1] {
					t.Fatalf("part %d: request %d at %d after %d", i, j, at, part.At[j-1])
				}
				if taken[at] {
					t.Fatalf("request %d of the run in two parts", at)
				}
				taken[at], times[at] = true, part.T[j]
				if i == n { // no part's
					continue
				}
				key := part.Key(j)
				want, h := of(key)
				if want != i {
					t.Fatalf("key %q in part %d, want %d", key, i, want)
				}
				if run.Dict() == 0 && h != part.Hash[j] { // an entry's key comes without its hash
					t.Fatalf("key %q with hash %x, want %x", key, part.Hash[j], h)
				}
				byAt[at] = fmt.Sprintf("%v: %d %q %d", run.Position(part, j), part.T[j], key, part.Cost[j])
			}
		}
		latest := int64(-1)
		for at := range run.Len() {
			if !taken[at] {
				t.Fatalf("request %d of %d in no part", at, run.Len())
			}
			if got := run.Before(int32(at)); got != latest {
				t.Fatalf("Before(%d) = %d, want %d", at, got, latest)
			}
			latest = max(latest, times[at])
			if byAt[at] != "" {
				o.recs = append(o.recs, byAt[at])
			}
		}
		if run.MaxT() != latest {
			t.Fatalf("MaxT %d, want %d", run.MaxT(), latest)
		}
		for range n {
			run.Done()
		}
	}
	if err := r.Err(); err != nil {
		o.err = err.Error()
	}
	if sc, ok := r.(SkipCounter); ok {
		var first []*ParseError
		o.skipped, first = sc.Skipped()
		for _, e := range first {
			o.examples = append(o.examples, e.Error())
		}
	}
	o.end = r.Pos()
	return o
}

// dropUnowned leaves out of o's requests those of keys of no part.
func dropUnowned(o csvOutcome, of PartOf) csvOutcome {
	o.recs = slices.DeleteFunc(slices.Clone(o.recs), func(rec string) bool {
		i := strings.Index(rec, `"`) // "pos: t "key" cost"
		key := rec[i:strings.LastIndexByte(rec, ' ')]
		var k string
		if _, err := fmt.Sscanf(key, "%q", &k); err != nil {
			panic(rec)
		}
		part, _ := of([]byte(k))
		return part < 0
	})
	return o
}

// checkPartitionedCSV reads data one record at a time, and in runs split
// by key, from one record at a time and through pipelines, and fails on
// any difference but the requests of keys no part takes.
func checkPartitionedCSV(t *testing.T, rng *rand.Rand, data []byte, opt Options, tunings int) {
	t.Helper()
	want := readCSVOutcome(data, sequential(opt), func(d []byte) io.Reader { return bytes.NewReader(d) })
	for k := range tunings {
		tune := withTuning(opt, parallelTuning(rng))
		if k == 0 {
			tune = sequential(opt)
		}
		var src io.Reader = bytes.NewReader(data)
		if rng.IntN(2) == 0 {
			src = &choppyReader{data, rand.New(rand.NewPCG(rng.Uint64(), 1)), 1 + rng.IntN(50)}
		}
		n, drop := 1+rng.IntN(4), rng.IntN(3) == 0
		of := testPartOf(n, drop)
		r, err := NewCSVReader(src, "t.csv", tune)
		if err != nil {
			if "open: "+err.Error() != want.err {
				t.Fatalf("%+v on %q: open: %v, want %s", tune, data, err, want.err)
			}
			continue
		}
		got := partOutcome(t, r, n, of)
		r.Close()
		if d := diffOutcomes(got, dropUnowned(want, of)); d != "" {
			t.Fatalf("%+v, %d parts, drop %v, on %q:\n%s", tune, n, drop, data, d)
		}
	}
}

// Read in runs split by key, a CSV trace gives every request of the
// sequential reader, in the part of its key, in trace order, at its line,
// and ends on the same error after the same records skipped, on random
// traces broken in every way.
func TestCSVPartitionMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for range 3000 {
		data, opt := hostileDelimited(rng)
		opt.SkipBad = rng.IntN(2) == 0
		if rng.IntN(3) == 0 {
			opt.MaxLine, opt.MaxKey = 5+rng.IntN(80), 1+rng.IntN(20)
		}
		checkPartitionedCSV(t, rng, data, opt, 4)
	}
}

// An I/O error ends the runs as it ends Scan, naming the same line.
func TestCSVPartitionReadError(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for range 1000 {
		data, opt := hostileDelimited(rng)
		cut := rng.IntN(len(data) + 1)
		opt.SkipBad = rng.IntN(2) == 0
		src := func(d []byte) io.Reader { return &failingReader{bytes.NewReader(d[:cut]), errDisk} }
		want := readCSVOutcome(data, sequential(opt), src)
		tune := withTuning(opt, parallelTuning(rng))
		n := 1 + rng.IntN(3)
		r, err := NewCSVReader(src(data), "t.csv", tune)
		if err != nil {
			continue
		}
		got := partOutcome(t, r, n, testPartOf(n, false))
		r.Close()
		if d := diffOutcomes(got, want); d != "" {
			t.Fatalf("%+v on %q cut at %d:\n%s", tune, data, cut, d)
		}
	}
}

// Large traces cross many chunks of the default size, some with broken
// records skipped, and the long records a pipeline falls back from.
func TestCSVPartitionLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	data := write(t, FormatCSV, awkwardRequests(50_000))
	broken := bytes.Clone(data)
	for range 50 {
		broken[rng.IntN(len(broken))] = ",\"\n\x00x"[rng.IntN(5)]
	}
	long := []byte("ts,key\n1,a\n2," + strings.Repeat("k", 3*readBufferSize) + "\n3,b\n")
	for _, in := range [][]byte{data, broken, long} {
		for _, opt := range []Options{{}, {SkipBad: true}, {csvWorkers: 3, csvChunk: 1000}, {SkipBad: true, MaxKey: 1 << 20, csvWorkers: 2, csvAfter: -1}} {
			checkPartitionedCSV(t, rng, in, opt, 2)
		}
	}
}

// The CSV files of the corpus of bad inputs read in runs as one record at
// a time.
func TestBadCorpusPartitioned(t *testing.T) {
	entries, err := os.ReadDir(badDir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(47, 48))
	n := 0
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".csv") || strings.HasSuffix(e.Name(), ".gz") || strings.HasSuffix(e.Name(), ".zst") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(badDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, skip := range []bool{false, true} {
			checkPartitionedCSV(t, rng, data, Options{SkipBad: skip}, 3)
		}
	}
	if n < 10 {
		t.Fatalf("only %d CSV files in the corpus", n)
	}
}

// Once scanned, a reader does not partition, and reads on with Scan.
func TestPartitionAfterScan(t *testing.T) {
	r, err := NewCSVReader(strings.NewReader("ts,key\n1,a\n2,b\n"), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	if r.Partition(2, testPartOf(2, false)) || r.NextRun() != nil {
		t.Fatal("partitioned after a Scan")
	}
	if !r.Scan() || string(r.Request().Key) != "b" {
		t.Fatal("the second request is lost")
	}
}
