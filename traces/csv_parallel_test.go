package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// csvOutcome is everything a CSV reader tells of a trace: every request
// with its position, the error, what it skipped and its position at the
// end.
type csvOutcome struct {
	recs     []string
	err      string
	skipped  int64
	examples []string
	end      Position
}

func (o csvOutcome) String() string {
	return fmt.Sprintf("%d requests, err %q, %d skipped %q, end at %v", len(o.recs), o.err, o.skipped, o.examples, o.end)
}

// readCSVOutcome reads data with opt through the reader src makes of it.
func readCSVOutcome(data []byte, opt Options, src func([]byte) io.Reader) csvOutcome {
	r, err := NewCSVReader(src(data), "t.csv", opt)
	if err != nil {
		return csvOutcome{err: "open: " + err.Error()}
	}
	defer r.Close()
	return csvOutcomeOf(r)
}

func csvOutcomeOf(r Reader) csvOutcome {
	var o csvOutcome
	for r.Scan() {
		q := r.Request()
		o.recs = append(o.recs, fmt.Sprintf("%v: %d %q %d", r.Pos(), q.T, q.Key, q.Cost))
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

func diffOutcomes(a, b csvOutcome) string {
	for i := range min(len(a.recs), len(b.recs)) {
		if a.recs[i] != b.recs[i] {
			return fmt.Sprintf("request %d: %s, want %s", i, a.recs[i], b.recs[i])
		}
	}
	if len(a.recs) != len(b.recs) || a.err != b.err || a.skipped != b.skipped ||
		fmt.Sprint(a.examples) != fmt.Sprint(b.examples) || a.end != b.end {
		return fmt.Sprintf("%v\nwant %v", a, b)
	}
	return ""
}

// choppyReader returns data in reads of random sizes, up to max bytes.
type choppyReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (c *choppyReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(c.max))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// failingReader reads r, then fails with err instead of ending.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		err = f.err
	}
	return n, err
}

var errDisk = errors.New("disk on fire")

// hostileCSV makes a CSV trace of valid and broken records of every kind
// the reader knows: quoted fields holding line breaks, CRLF and doubled
// quotes, bare quotes, NUL bytes, blank lines, wrong field counts, bad
// values, long lines, a quoted field left open.
func hostileCSV(rng *rand.Rand) []byte {
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\xEF\xBB\xBF")
	}
	cost := rng.IntN(2) == 0
	if cost {
		b.WriteString("cost, ts ,key")
	} else {
		b.WriteString("ts,key")
	}
	crlf := rng.IntN(3) == 0
	eol := func() string {
		if crlf || rng.IntN(10) == 0 {
			return "\r\n"
		}
		return "\n"
	}
	b.WriteString(eol())
	key := func() string {
		switch rng.IntN(12) {
		case 0:
			return `"a` + eol() + `b"`
		case 1:
			return `"x""y""` + eol() + `"`
		case 2:
			return `a"b`
		case 3:
			return `"a"b`
		case 4:
			return "k\x00"
		case 5:
			return strings.Repeat("k", rng.IntN(120))
		case 6:
			return `"` + strings.Repeat("q,\"\""+eol(), rng.IntN(6)) + `"`
		case 7:
			return ""
		case 8:
			return "\xff"
		case 9:
			return "k\r"
		}
		return fmt.Sprintf("10.0.%d.%d", rng.IntN(3), rng.IntN(300))
	}
	ts := func() string {
		switch rng.IntN(14) {
		case 0:
			return "x"
		case 1:
			return ""
		case 2:
			return "1700000000.123456789"
		case 3:
			return "2024-01-02T03:04:05.5Z"
		case 4:
			return "-1"
		case 5:
			return `"12"`
		}
		return fmt.Sprint(rng.IntN(1e6))
	}
	n := rng.IntN(30)
	for range n {
		switch rng.IntN(16) {
		case 0:
			b.WriteString(eol())
			continue
		case 1:
			b.WriteString(ts() + "," + key() + ",extra")
		case 2:
			b.WriteString(ts())
		case 3: // raw noise
			const alphabet = ",\"\n\r\x00ab1 "
			for range rng.IntN(20) {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		default:
			if cost {
				c := []string{"1", "", "7", "0", "x", "99999999999"}[rng.IntN(6)]
				b.WriteString(c + "," + ts() + "," + key())
			} else {
				b.WriteString(ts() + "," + key())
			}
		}
		b.WriteString(eol())
	}
	switch rng.IntN(6) {
	case 0:
		b.Truncate(max(b.Len()-1, 0))
	case 1:
		b.WriteString("1,\"open to the end" + eol() + "x")
	case 2:
		b.WriteString(eol() + eol())
	}
	return b.Bytes()
}

// hostileDelimited is hostileCSV with, at random, another separator than
// the comma (given, or to be told from the header) or no header, the
// columns given instead; opt says how to read it.
func hostileDelimited(rng *rand.Rand) (data []byte, opt Options) {
	data = hostileCSV(rng)
	sep := sepCandidates[rng.IntN(len(sepCandidates))]
	if sep != ',' {
		data = bytes.ReplaceAll(data, []byte{','}, []byte{sep})
	}
	if rng.IntN(2) == 0 {
		opt.Sep = sep
	}
	if rng.IntN(4) == 0 {
		opt.Columns = []string{"ts", "key"}
		if bytes.HasPrefix(bytes.TrimPrefix(data, utf8BOM), []byte("cost")) {
			opt.Columns = []string{"cost", "_", "key"}
			if rng.IntN(2) == 0 {
				opt.Columns[1] = "ts"
			}
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, opt
}

// parallelTunings are the pipelines the differential tests read with: tiny
// chunks and reads put chunk and read boundaries everywhere, inside quoted
// fields, between the '\r' and '\n' of a CRLF, right after a record.
func parallelTuning(rng *rand.Rand) Options {
	return Options{
		csvWorkers: 2 + rng.IntN(3),
		csvChunk:   []int{1, 2, 5, 16, 100, 4096}[rng.IntN(6)],
		csvRead:    []int{0, 1, 2, 3, 7, 64}[rng.IntN(6)],
		csvAfter:   []int{-1, -1, 1, 3}[rng.IntN(4)],
	}
}

func withTuning(opt, tune Options) Options {
	opt.csvWorkers, opt.csvChunk, opt.csvRead, opt.csvAfter = tune.csvWorkers, tune.csvChunk, tune.csvRead, tune.csvAfter
	return opt
}

func sequential(opt Options) Options {
	opt.csvWorkers = 1
	return opt
}

// checkParallelCSV reads data one record at a time and through pipelines,
// from whole and choppy inputs, and fails on any difference.
func checkParallelCSV(t *testing.T, rng *rand.Rand, data []byte, opt Options, tunings int) {
	t.Helper()
	whole := func(d []byte) io.Reader { return bytes.NewReader(d) }
	want := readCSVOutcome(data, sequential(opt), whole)
	for range tunings {
		tune := withTuning(opt, parallelTuning(rng))
		if opt.csvRead != 0 {
			tune.csvRead = opt.csvRead
		}
		src := whole
		if rng.IntN(2) == 0 {
			seed := rng.Uint64()
			src = func(d []byte) io.Reader { return &choppyReader{d, rand.New(rand.NewPCG(seed, 1)), 1 + int(seed%50)} }
		}
		if got := readCSVOutcome(data, tune, src); diffOutcomes(got, want) != "" {
			t.Fatalf("%+v on %q:\n%s", tune, data, diffOutcomes(got, want))
		}
	}
}

// The parallel reader reads exactly what the sequential one does: the same
// requests at the same lines, the same error, the same records skipped, on
// random traces broken in every way, whatever their separator, with a
// header or without.
func TestCSVParallelMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data, opt := hostileDelimited(rng)
		opt.SkipBad = rng.IntN(2) == 0
		if rng.IntN(3) == 0 {
			opt.MaxLine, opt.MaxKey = 5+rng.IntN(80), 1+rng.IntN(20)
		}
		checkParallelCSV(t, rng, data, opt, 4)
	}
}

// An I/O error stops both readers alike, naming the same line, wherever in
// a record it comes.
func TestCSVParallelReadError(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		data, opt := hostileDelimited(rng)
		cut := rng.IntN(len(data) + 1)
		opt.SkipBad = rng.IntN(2) == 0
		if rng.IntN(3) == 0 {
			opt.MaxLine = 5 + rng.IntN(80)
		}
		src := func(d []byte) io.Reader { return &failingReader{bytes.NewReader(d[:cut]), errDisk} }
		want := readCSVOutcome(data, sequential(opt), src)
		tune := withTuning(opt, parallelTuning(rng))
		if got := readCSVOutcome(data, tune, src); diffOutcomes(got, want) != "" {
			t.Fatalf("%+v on %q cut at %d:\n%s", tune, data, cut, diffOutcomes(got, want))
		}
	}
}

// Long lines and records: past the bufio buffer, past MaxLine (refused
// after about MaxLine bytes, then read through), exactly at the buffer's
// size, ending the file without a newline.
func TestCSVParallelLongRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k := func(n int) string { return strings.Repeat("k", n) }
	var inputs []string
	for _, n := range []int{readBufferSize - 4, readBufferSize - 3, readBufferSize - 2, readBufferSize - 1, 69_990, 70_005, 3 * readBufferSize} {
		inputs = append(inputs,
			"ts,key\n1,a\n2,"+k(n)+"\n3,b\n",
			"ts,key\n1,a\n2,"+k(n)+"\r\n3,b",
			"ts,key\n1,a\n2,"+k(n),
			"ts,key\n1,a\n2,\""+k(n)+"\n"+k(n/2)+"\"\n3,b\n",
			"ts,key\n1,a\n2,\"a\n"+k(n)+"\n\",x\n3,b\n",
			"ts,key\n1,a\n2,\""+k(n)+"\n",
			"ts,key\n1,a\n2,\""+k(n)+"\n\x00\n\"\n3,b\n4,c\n",
		)
	}
	for _, in := range inputs {
		for _, opt := range []Options{{}, {SkipBad: true}, {MaxLine: 70_000, MaxKey: 1 << 20}, {MaxLine: 70_000, SkipBad: true},
			{MaxKey: 1 << 20, SkipBad: true}, {MaxLine: readBufferSize - 2}, {MaxLine: readBufferSize - 1, SkipBad: true},
			{MaxLine: readBufferSize, MaxKey: 1 << 20}} {
			opt.csvRead = []int{3, 64, 4096, 0}[rng.IntN(4)] // reads of a byte or two would make the test slow
			checkParallelCSV(t, rng, []byte(in), opt, 2)
		}
	}
}

// Large traces cross many chunks of the default size, on the pipeline the
// reader starts by itself after its first records.
func TestCSVParallelLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	reqs := awkwardRequests(50_000)
	data := write(t, FormatCSV, reqs)
	whole := func(d []byte) io.Reader { return bytes.NewReader(d) }
	want := readCSVOutcome(data, sequential(Options{}), whole)
	if len(want.recs) != len(reqs) || want.err != "" {
		t.Fatalf("sequential: %v", want)
	}
	for _, opt := range []Options{{csvWorkers: 2}, {csvWorkers: 3, csvChunk: 1000}, {csvWorkers: 2, csvAfter: -1, csvChunk: 50_000, csvRead: 777}} {
		if got := readCSVOutcome(data, opt, whole); diffOutcomes(got, want) != "" {
			t.Fatalf("%+v: %s", opt, diffOutcomes(got, want))
		}
	}
	// Some broken records among them, skipped.
	broken := bytes.Clone(data)
	for range 50 {
		broken[rng.IntN(len(broken))] = ",\"\n\x00x"[rng.IntN(5)]
	}
	opt := Options{SkipBad: true}
	want = readCSVOutcome(broken, sequential(opt), whole)
	if want.skipped == 0 {
		t.Fatal("nothing skipped")
	}
	for _, tune := range []Options{{csvWorkers: 2}, {csvWorkers: 3, csvChunk: 1000, csvAfter: -1}} {
		if got := readCSVOutcome(broken, withTuning(opt, tune), whole); diffOutcomes(got, want) != "" {
			t.Fatalf("%+v: %s", tune, diffOutcomes(got, want))
		}
	}
}

// A compressed trace, and Reorder over the reader, read alike.
func TestCSVParallelCompressedAndReordered(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	reqs := benchRequests(20_000)
	for i := range reqs {
		reqs[i].T -= int64(rng.IntN(1000)) // out of order within a microsecond
	}
	data := write(t, FormatCSV, reqs)
	for _, kind := range []compression{compressGzip, compressZstd} {
		z := compress(t, kind, data)
		outcome := func(opt Options, d time.Duration) csvOutcome {
			r, err := openStream(bytes.NewReader(z), "t.csv.gz", FormatAuto, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if d > 0 {
				r = Reorder(r, d)
			}
			return csvOutcomeOf(r)
		}
		for _, d := range []time.Duration{0, time.Microsecond} {
			want := outcome(Options{csvWorkers: 1}, d)
			if len(want.recs) != len(reqs) || want.err != "" {
				t.Fatalf("%v sequential: %v", kind, want)
			}
			for _, tune := range []Options{{csvWorkers: 2}, {csvWorkers: 2, csvAfter: -1, csvChunk: 3000, csvRead: 1000}} {
				if got := outcome(tune, d); diffOutcomes(got, want) != "" {
					t.Fatalf("%v, reorder %v, %+v: %s", kind, d, tune, diffOutcomes(got, want))
				}
			}
		}
	}
}

// The pipeline allocates nothing per record once its chunks are made.
func TestCSVParallelAllocs(t *testing.T) {
	data := write(t, FormatCSV, benchRequests(400_000))
	r, err := NewCSVReader(bytes.NewReader(data), "t.csv", Options{csvWorkers: 2, csvAfter: -1, csvChunk: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	allocs := testing.AllocsPerRun(200, func() {
		for range 1000 {
			if !r.Scan() {
				t.Fatal("short trace", r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per 1000 records, want 0", allocs)
	}
	if r.par == nil {
		t.Fatal("the reader did not read in parallel")
	}
}

// A reader on a pipe hands out the records that came before it waits for
// more, and stops when cancelled while it waits, naming the line it waits
// for.
func TestCSVParallelStalledPipe(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("ts,key\n1,a\n2,\"b"))
		pw.Write([]byte("\n\"\n3,c\n")) // then nothing, and no end
	}()
	cancel := make(chan struct{})
	r, err := NewCSVReader(pr, "t", Options{Cancel: cancel, TSUnit: time.Nanosecond, csvWorkers: 2, csvAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if !r.Scan() {
			t.Fatalf("record %d: %v", i, r.Err())
		}
	}
	if r.par == nil {
		t.Fatal("the reader did not read in parallel")
	}
	stopsWithin(t, cancel, func() {
		if r.Scan() {
			t.Error("read a request from nothing")
		}
	})
	if err := r.Err(); !errors.Is(err, ErrInterrupted) || err.Error() != "t:6: reading interrupted" {
		t.Errorf("%v, want t:6: reading interrupted", err)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
}

// Closing a reader whose pipeline waits on a stalled pipe returns at once;
// the file is closed when that read returns.
func TestCSVParallelCloseWhileReading(t *testing.T) {
	pr, pw := io.Pipe()
	go pw.Write([]byte("ts,key\n1,a\n"))
	closed := make(chan struct{})
	r, err := newCSVReader(pr, "t", Options{TSUnit: time.Nanosecond, csvWorkers: 2, csvAfter: -1}, closerFunc(func() error { close(closed); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	for reading := false; !reading; { // wait for the splitter to wait in a read
		time.Sleep(time.Millisecond)
		r.pipe.mu.Lock()
		reading = r.pipe.reading
		r.pipe.mu.Unlock()
	}
	done := make(chan struct{})
	go func() { r.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("Close waits for the stalled read")
	}
	select {
	case <-closed:
		t.Fatal("closed while a read was under way")
	default:
	}
	pw.Write([]byte("2,b\n"))
	select {
	case <-closed:
	case <-time.After(time.Second):
		t.Fatal("not closed after the read returned")
	}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// The CSV files of the corpus of bad inputs read in parallel as one record
// at a time, compressed ones too.
func TestBadCorpusParallel(t *testing.T) {
	entries, err := os.ReadDir(badDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".csv") && !strings.Contains(e.Name(), ".tsv") && !strings.HasPrefix(e.Name(), "headerless") {
			continue
		}
		n++
		path := filepath.Join(badDir, e.Name())
		for _, skip := range []bool{false, true} {
			outcome := func(opt Options) csvOutcome {
				opt.SkipBad = skip
				r, err := Open(path, FormatAuto, opt)
				if err != nil {
					return csvOutcome{err: "open: " + err.Error()}
				}
				defer r.Close()
				return csvOutcomeOf(r)
			}
			want := outcome(Options{csvWorkers: 1})
			for _, tune := range []Options{{csvWorkers: 2, csvAfter: -1, csvChunk: 1, csvRead: 3}, {csvWorkers: 3, csvAfter: 1, csvChunk: 64}} {
				if got := outcome(tune); diffOutcomes(got, want) != "" {
					t.Errorf("%s, SkipBad %v, %+v: %s", e.Name(), skip, tune, diffOutcomes(got, want))
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d CSV files in the corpus", n)
	}
}

// Without a header, the first record may start with a byte order mark,
// which is not part of its first field: a quote after it opens a quoted
// field, in the record read whole, in one refused as too long and read
// through, and in the parallel reader's chunks.
func TestCSVHeaderlessBOM(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	long := strings.Repeat("k", 100)
	long70k := strings.Repeat("k", 70_000)
	for _, tt := range []struct {
		in   string
		opt  Options
		want string
	}{
		{"\xEF\xBB\xBF\"\n\"", Options{}, `0 requests, err "t.csv:1: 1 field, -columns names 2; give the separator with -sep", 0 skipped [], end at t.csv:1`},
		{"\xEF\xBB\xBF\"1\",a\n2,b\n", Options{}, `2 requests, err "", 0 skipped [], end at t.csv:2`},
		{"\xEF\xBB\xBF\"" + long + "\n,x\"\n3,b\n", Options{MaxLine: 50, SkipBad: true},
			`1 requests, err "", 1 skipped ["t.csv:1: line of 104 bytes exceeds the limit of 50 (-max-line)"], end at t.csv:3`},
		{"\xEF\xBB\xBF\"" + long70k + "\n,x\"\n3,b\n", Options{MaxLine: 50, SkipBad: true},
			`1 requests, err "", 1 skipped ["t.csv:1: line longer than the limit of 50 bytes (-max-line)"], end at t.csv:3`},
	} {
		tt.opt.Columns = []string{"ts", "key"}
		whole := func(d []byte) io.Reader { return bytes.NewReader(d) }
		if got := readCSVOutcome([]byte(tt.in), sequential(tt.opt), whole); got.String() != tt.want {
			t.Errorf("%.20q: %v\nwant %s", tt.in, got, tt.want)
		}
		for range 20 {
			tune := withTuning(tt.opt, parallelTuning(rng))
			tune.csvAfter = -1
			if got := readCSVOutcome([]byte(tt.in), tune, whole); got.String() != tt.want {
				t.Fatalf("%.20q, %+v: %v\nwant %s", tt.in, tune, got, tt.want)
			}
		}
	}
}
