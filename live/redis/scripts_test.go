package redis

import (
	"context"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// TestLuaLE checks the scripts' exact comparison a*b <= c*d against exact
// products (math/big), on edge cases, on random values below 2^52 and on
// products that are equal or differ by a little (where rounding a double
// product would go wrong).
func TestLuaLE(t *testing.T) {
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer c.Close()
	ctx := context.Background()
	le := goredis.NewScript(luaCommon + `
local out = {}
for i = 1, #ARGV, 4 do
  local a, b, c, d = tonumber(ARGV[i]), tonumber(ARGV[i+1]), tonumber(ARGV[i+2]), tonumber(ARGV[i+3])
  out[#out+1] = le(a, b, c, d) and 1 or 0
end
return out`)
	const top = MaxExact - 1
	cases := [][4]uint64{
		{0, 0, 0, 0}, {0, 5, 0, 7}, {1, 1, 0, 9}, {3, 5, 15, 1}, {3, 5, 14, 1}, {top, top, top, top},
		{top, top - 1, top - 1, top}, {top, top, top - 1, top}, {top, 1, 1, top}, {top - 1, top, top, top - 1},
		{1 << 51, 2, 1 << 26, 1 << 26}, {1<<51 + 1, 2, 1 << 26, 1 << 26},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r52 := func() uint64 { return rng.Uint64N(MaxExact) }
	r26 := func() uint64 { return 1 + rng.Uint64N(1<<26-1) }
	for range 3000 {
		cases = append(cases, [4]uint64{r52(), r52(), r52(), r52()})
		x, y, z, u := r26(), r26(), r26(), r26()
		cases = append(cases, [4]uint64{x * y, z * u, x * z, y * u})   // equal
		cases = append(cases, [4]uint64{x * y, z * u, x * z, y*u - 1}) // just below
		cases = append(cases, [4]uint64{x * y, z * u, x * z, y*u + 1}) // just above
		cases = append(cases, [4]uint64{x*y + 1, z * u, x * z, y * u}) // a one more
		cases = append(cases, [4]uint64{rng.Uint64N(100), r52(), r52(), rng.Uint64N(100)})
	}
	for start := 0; start < len(cases); start += 1000 {
		part := cases[start:min(start+1000, len(cases))]
		var args []any
		for _, k := range part {
			for _, v := range k {
				args = append(args, strconv.FormatUint(v, 10))
			}
		}
		got, err := le.Eval(ctx, c, nil, args...).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range part {
			var p, q big.Int
			p.Mul(new(big.Int).SetUint64(k[0]), new(big.Int).SetUint64(k[1]))
			q.Mul(new(big.Int).SetUint64(k[2]), new(big.Int).SetUint64(k[3]))
			want := p.Cmp(&q) <= 0
			if (got[i] == 1) != want {
				t.Errorf("le(%d, %d, %d, %d) = %v, want %v", k[0], k[1], k[2], k[3], got[i] == 1, want)
			}
		}
	}
}

// TestLuaInt: int formats integers up to 2^52 in full, negative too.
func TestLuaInt(t *testing.T) {
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer c.Close()
	s := goredis.NewScript(luaCommon + `return {int(tonumber(ARGV[1])), int(-tonumber(ARGV[1])), int(tonumber(ARGV[1]) - 1)}`)
	for _, v := range []int64{0, 1, 1e15, 1704067200, MaxExact - 1, MaxExact} {
		got, err := s.Eval(context.Background(), c, nil, strconv.FormatInt(v, 10)).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{strconv.FormatInt(v, 10), strconv.FormatInt(-v, 10), strconv.FormatInt(v-1, 10)}
		if want[1] == "-0" {
			want[1] = "0"
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("int(%d): got %q, want %q", v, got, want)
				break
			}
		}
	}
}

func TestServerStartStop(t *testing.T) {
	s := StartForTest(t)
	if err := ping(context.Background(), s.Addr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.proc.Dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := ping(context.Background(), s.Addr); err == nil {
		t.Error("the server still answers after Stop")
	}
	if _, err := os.Stat(s.proc.Dir); !os.IsNotExist(err) {
		t.Errorf("%s not removed: %v", s.proc.Dir, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}
