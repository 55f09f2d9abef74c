package generators

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"
	"time"
)

var printDigests = flag.Bool("print-digests", false, "print the stream digests of TestStreamsUnchanged instead of checking them")

// identityCase is a generated trace whose whole stream is pinned.
type identityCase struct {
	spec string
	p    Params
	want string // sha256 of the stream, see streamDigest
}

// The digests were taken from the generator as it was before its speed-ups
// (batched Parquet output, keys formatted once per source, exponential gaps
// drawn without distuv, ...): every scenario, mixes, several seeds, more
// keys than requests (only the sending sources kept), a duration limit.
var identityCases = []identityCase{
	{"poisson", Params{Requests: 30_000, Keys: 300, Seed: 1}, "4082b2136097ec4ac63fb6b08554624509d24d7d9731b038475020368cd09c34"},
	{"poisson", Params{Requests: 30_000, Keys: 7, Seed: 9, Rate: 3}, "822a6f30f4a30d1d24c0d72d46dbfbbc57ba358a77fbd6f9debb3836217f33a0"},
	{"population", Params{Requests: 40_000, Keys: 5_000, Seed: 1}, "c0c6a5234966016be1e34accfdc51c48d9680b2b13d482adfe2cd19dbb6e151a"},
	{"population", Params{Requests: 40_000, Keys: 5_000, Seed: 4, Rate: 0.05}, "8f617dbc730d5a31039d50d99e966bef258658226605025aae6ef303f36dc78b"},
	{"population:alpha=1.2,max=0", Params{Requests: 20_000, Keys: 900, Seed: 2}, "e3ca943143d5295101bebc17f169cc033ccd5ba86e35cee0e3330b460e940731"},
	{"population", Params{Requests: 3_000, Keys: 20_000, Seed: 3}, "0c54f7880547bd1616466b3ef0877e6b09b8f58c48ca5343baa63081dbb7c938"}, // more keys than requests
	{"poisson", Params{Requests: 50_000, Keys: 200, Seed: 5, Duration: 10 * time.Minute}, "9d19eb375bee980ebee6c78865004b2c0a09024f98d7267421b75c1e3a364805"},
	{"zipf", Params{Requests: 30_000, Keys: 400, Seed: 1}, "ea2344565d6396d672e75a3c7173d27c60fbc574cb39f149a9c6a289bd3752a5"},
	{"onoff", Params{Requests: 30_000, Keys: 400, Seed: 6}, "c322505aea516122471b8a0ef3b23235fdcec0d689f183a310eee61c557b164c"},
	{"diurnal:period=600", Params{Requests: 30_000, Keys: 100, Seed: 1}, "467ea68ab03144774410ac1e2a84c6b205a29e720c5a1c88960f3ebe82be8f5e"},
	{"pareto", Params{Requests: 30_000, Keys: 100, Seed: 8}, "b42ca56b45b3e0e5df07d6cb08ceb17992014478246eadd8c0f764b5860a1a79"},
	{"retry", Params{Requests: 30_000, Keys: 100, Seed: 1}, "6480af29276c811415eff5060b65c5bb042d4399fc9a280423d7f78dadb5bcb4"},
	{"early", Params{Requests: 30_000, Keys: 100, Seed: 2}, "a5e71e458b833318670a1fdc5f0ad312d6af32a29858128531d9ed06e0484e03"},
	{"boundary", Params{Requests: 30_000, Keys: 100, Seed: 3}, "e8d643923d48000273f5418850e3c273cf93e217575fb226b4555e76e488b07c"},
	{"mix:poisson=0.4,onoff=0.2,zipf=0.1,early=0.15,boundary=0.15", Params{Requests: 60_000, Keys: 1_000, Seed: 1}, "2d3de5f1e2cd941417a389a672f44b2b607d794f85d55afe5000104f7e03bc35"},
	{"mix:poisson=0.7,onoff=0.25,early=0.03,boundary=0.02,early.burst=5,boundary.burst=5", Params{Requests: 40_000, Keys: 2_000, Rate: 0.05, Seed: 7}, "528c27aa45d221602e6cdd1db2017353bfd83873117a12e1feb8f142717b8f36"},
	{"mix:population=0.5,retry=0.3,pareto=0.2", Params{Requests: 2_000, Keys: 9_000, Seed: 11}, "69362e6d3400a8519ed27244f274f92e807ea2739fbec8996b7748f573271cfc"}, // more keys than requests
}

// streamDigest hashes every request of a stream: time, key index, key and
// cost, and the number of requests.
type streamDigest struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	n int64
}

func newStreamDigest() *streamDigest { return &streamDigest{h: sha256.New()} }

func (d *streamDigest) add(t int64, idx int32, key []byte, cost int64) {
	var b [8 + 4 + 8 + 4]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(t))
	binary.LittleEndian.PutUint32(b[8:], uint32(idx))
	binary.LittleEndian.PutUint64(b[12:], uint64(cost))
	binary.LittleEndian.PutUint32(b[20:], uint32(len(key)))
	d.h.Write(b[:])
	d.h.Write(key)
	d.n++
}

func (d *streamDigest) sum() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(d.n))
	d.h.Write(b[:])
	return hex.EncodeToString(d.h.Sum(nil))
}

func scanDigest(t *testing.T, c identityCase) string {
	t.Helper()
	g, err := New(c.spec, c.p)
	if err != nil {
		t.Fatalf("New(%q): %v", c.spec, err)
	}
	d := newStreamDigest()
	for g.Scan() {
		tc, cost := g.TimeCost()
		r := g.Request()
		if tc != r.T || cost != r.Cost {
			t.Fatalf("%s: request %d: TimeCost gives %d, %d; Request %d, %d", c.spec, d.n+1, tc, cost, r.T, r.Cost)
		}
		d.add(r.T, g.KeyIndex(), r.Key, r.Cost)
	}
	return d.sum()
}

// The generated streams are exactly those of the generator before its
// speed-ups, request for request.
func TestStreamsUnchanged(t *testing.T) {
	for i, c := range identityCases {
		name := fmt.Sprintf("%d/%s", i, c.spec)
		got := scanDigest(t, c)
		if *printDigests {
			fmt.Printf("%s %s\n", name, got)
			continue
		}
		if got != c.want {
			t.Errorf("%s %+v: stream digest %s, want %s", name, c.p, got, c.want)
		}
	}
}
