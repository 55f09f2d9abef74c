package traces

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"unsafe"
)

// floorN is the number of requests of floorRequests.
const floorN = benchN

// floorKeys is the number of keys of the floor's trace.
const floorKeys = 100_000

// floorDraws returns n requests shaped like the replay floor's trace (the
// CSV that make_trace.py writes for the performance bar): integer
// nanosecond times whose gaps are exponential with a mean of 50 µs, and
// keys numbered below floorKeys, every odd request's uniform among them and
// every even one's Pareto-popular (shape 1.1, a few keys take most of
// those). Key k is named "k<k>" (floorKeyName).
func floorDraws(n int) (ts []int64, keys []int32) {
	rng := rand.New(rand.NewPCG(5, 5))
	ts, keys = make([]int64, n), make([]int32, n)
	t := int64(1_700_000_000) * 1e9
	for i := range n {
		t += int64(rng.ExpFloat64() * 50_000)
		var k int
		if i&1 == 1 {
			k = rng.IntN(floorKeys)
		} else {
			pareto := 1 / math.Pow(1-rng.Float64(), 1/1.1)
			k = int(pareto) % floorKeys
		}
		ts[i], keys[i] = t, int32(k)
	}
	return ts, keys
}

func floorKeyName(k int32) []byte { return []byte("k" + strconv.Itoa(int(k))) }

// floorRequests is floorN requests of the floor's trace (floorDraws), of
// cost 1.
var floorRequests = sync.OnceValue(func() []Request {
	ts, keys := floorDraws(floorN)
	reqs := make([]Request, floorN)
	for i := range reqs {
		reqs[i] = Request{T: ts[i], Key: floorKeyName(keys[i]), Cost: 1}
	}
	return reqs
})

// floorCSV is floorRequests as the floor's CSV: "ts,key" lines.
var floorCSV = sync.OnceValue(func() []byte {
	b := []byte("ts,key\n")
	for _, r := range floorRequests() {
		b = strconv.AppendInt(b, r.T, 10)
		b = append(b, ',')
		b = append(b, r.Key...)
		b = append(b, '\n')
	}
	return b
})

// floorJSONL is floorRequests as JSON lines: {"ts":...,"key":"..."}.
var floorJSONL = sync.OnceValue(func() []byte {
	var b []byte
	for _, r := range floorRequests() {
		b = fmt.Appendf(b, `{"ts":%d,"key":%q}`+"\n", r.T, r.Key)
	}
	return b
})

// interner gives each key a dense id in order of first appearance, as the
// replay's key table does with the keys a reader hands it: the work every
// reader's consumer does per request, measured with the reader.
type interner map[string]int32

func (m interner) intern(key []byte) int32 {
	if id, ok := m[string(key)]; ok {
		return id
	}
	id := int32(len(m))
	m[string(key)] = id
	return id
}

// bytesOf is s's bytes, not copied: a library reader's string field handed
// on as a Request's Key without the copy the conversion would make, so that
// the comparison charges the library with no more than it must do.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// benchRecords runs each reader of readers on data, whose n records it
// reads per iteration: "read" hands every key to nothing, "intern" interns
// it (as the replay does: the consumer's share of the work, the same for
// every reader). It reports ns/record, and the CPU time of the goroutine
// that calls Scan per record (scan-cpu-ns/record).
func benchRecords(b *testing.B, data []byte, n int, readers []benchReader) {
	for _, use := range []string{"read", "intern"} {
		for _, r := range readers {
			b.Run(r.name+"/"+use, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var sink int
				// The CPU time of the goroutine that scans (and interns),
				// on a thread of its own: a parallel reader's workers do
				// the rest of its work beside it.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0 := threadCPU()
				for b.Loop() {
					ids := interner(nil)
					each := func(key []byte) { sink += len(key) }
					if use == "intern" {
						ids = make(interner, 1<<17)
						each = func(key []byte) { ids.intern(key) }
					}
					k, err := r.read(each)
					if err != nil || k != n {
						b.Fatal(k, err)
					}
				}
				cpu := threadCPU() - cpu0
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
				if cpu0 >= 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "scan-cpu-ns/record")
				}
			})
		}
	}
}

// benchReader is one way to read a trace: read hands each record's key to
// each, and returns how many records it read.
type benchReader struct {
	name string
	read func(each func(key []byte)) (int, error)
}
