package redis

import (
	"context"
	"slices"
	"sort"

	goredis "github.com/redis/go-redis/v9"
	"gonum.org/v1/gonum/stat"

	"ratebench/summary"
)

// measureMemory finds the keys under prefix with SCAN and asks MEMORY
// USAGE key SAMPLES 0 (every element counted) and OBJECT ENCODING of at
// most sample of them, and ZCARD too when zset is set. The sample is
// deterministic: the key names sorted, then evenly spaced ones.
func measureMemory(ctx context.Context, c *goredis.Client, prefix string, sample int, zset bool) (summary.LiveMemory, error) {
	keys, err := scanKeys(ctx, c, prefix)
	if err != nil {
		return summary.LiveMemory{}, err
	}
	mems, err := measureKeys(ctx, c, evenlySpaced(keys, sample), zset)
	if err != nil {
		return summary.LiveMemory{}, err
	}
	m := summarize(mems)
	m.RedisKeys = int64(len(keys))
	return m, nil
}

// scanKeys returns the keys under prefix, sorted, each once.
func scanKeys(ctx context.Context, c *goredis.Client, prefix string) ([]string, error) {
	var keys []string
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, err
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil // SCAN may return a key twice
}

// evenlySpaced returns at most n of keys, evenly spaced.
func evenlySpaced(keys []string, n int) []string {
	if len(keys) <= n {
		return keys
	}
	picked := make([]string, n)
	for i := range picked {
		picked[i] = keys[int(int64(i)*int64(len(keys))/int64(n))]
	}
	return picked
}

// keyMem is what the server says of one key.
type keyMem struct {
	name    string
	enc     string
	bytes   int64
	entries int64 // its sorted set's size (zset), else 0
}

// measureKeys asks the server about each key, in pipelines of 256; a key
// expired since it was found is left out.
func measureKeys(ctx context.Context, c *goredis.Client, keys []string, zset bool) ([]keyMem, error) {
	mems := make([]keyMem, 0, len(keys))
	const batch = 256
	for start := 0; start < len(keys); start += batch {
		part := keys[start:min(start+batch, len(keys))]
		pipe := c.Pipeline()
		usage := make([]*goredis.IntCmd, len(part))
		enc := make([]*goredis.StringCmd, len(part))
		card := make([]*goredis.IntCmd, len(part))
		for i, k := range part {
			usage[i] = pipe.MemoryUsage(ctx, k, 0)
			enc[i] = pipe.ObjectEncoding(ctx, k)
			if zset {
				card[i] = pipe.ZCard(ctx, k)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
			return nil, err
		}
		for i := range part {
			b, err := usage[i].Result()
			if err == goredis.Nil {
				continue // expired since SCAN
			}
			if err != nil {
				return nil, err
			}
			km := keyMem{name: part[i], bytes: b, enc: enc[i].Val()}
			if zset {
				km.entries = card[i].Val()
			}
			mems = append(mems, km)
		}
	}
	return mems, nil
}

// summarize sums the sampled keys' sizes, in all and per encoding (with
// the bytes each entry adds, by least squares, where the keys' sizes
// vary).
func summarize(mems []keyMem) summary.LiveMemory {
	m := summary.LiveMemory{SampledKeys: len(mems)}
	if len(mems) == 0 {
		return m
	}
	var total int64
	byEnc := map[string][]keyMem{}
	for _, km := range mems {
		m.KeyNameBytes += float64(len(km.name))
		total += km.bytes
		m.Entries += km.entries
		byEnc[km.enc] = append(byEnc[km.enc], km)
	}
	m.KeyNameBytes /= float64(len(mems))
	m.BytesPerKey = float64(total) / float64(len(mems))
	if m.Entries > 0 {
		m.BytesPerEntry = float64(total) / float64(m.Entries)
	}
	names := make([]string, 0, len(byEnc))
	for e := range byEnc {
		names = append(names, e)
	}
	sort.Strings(names)
	for _, name := range names {
		m.Encodings = append(m.Encodings, encoding(name, byEnc[name]))
	}
	return m
}

// encoding sums the keys of one encoding.
func encoding(name string, ks []keyMem) summary.LiveEncoding {
	e := summary.LiveEncoding{Encoding: name, Keys: len(ks)}
	xs, ys := make([]float64, len(ks)), make([]float64, len(ks))
	for i, km := range ks {
		e.Bytes += km.bytes
		e.Entries += km.entries
		xs[i], ys[i] = float64(km.entries), float64(km.bytes)
	}
	e.BytesPerKey = float64(e.Bytes) / float64(e.Keys)
	if e.Entries > 0 {
		e.BytesPerEntry = float64(e.Bytes) / float64(e.Entries)
		if slices.Min(xs) != slices.Max(xs) {
			_, beta := stat.LinearRegression(xs, ys, nil, false)
			e.MarginalBytesPerEntry = &beta
		}
	}
	return e
}
