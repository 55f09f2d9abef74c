package redisreplay

import (
	"context"
	"slices"
	"sort"

	"github.com/redis/go-redis/v9"
	"gonum.org/v1/gonum/stat"
)

// measureMemory finds the keys under prefix with SCAN and asks MEMORY
// USAGE key SAMPLES 0 (every element counted) and OBJECT ENCODING of at
// most sample of them, and ZCARD too when zset is set. The sample is
// deterministic: the key names sorted, then evenly spaced ones.
func measureMemory(ctx context.Context, c *redis.Client, prefix string, sample int, zset bool) (Memory, error) {
	var keys []string
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return Memory{}, err
	}
	slices.Sort(keys)
	keys = slices.Compact(keys) // SCAN may return a key twice
	m := Memory{RedisKeys: int64(len(keys))}
	picked := keys
	if len(keys) > sample {
		picked = make([]string, sample)
		for i := range picked {
			picked[i] = keys[int(int64(i)*int64(len(keys))/int64(sample))]
		}
	}
	type keyMem struct {
		enc     string
		bytes   int64
		entries int64
	}
	mems := make([]keyMem, 0, len(picked))
	const batch = 256
	for start := 0; start < len(picked); start += batch {
		part := picked[start:min(start+batch, len(picked))]
		pipe := c.Pipeline()
		usage := make([]*redis.IntCmd, len(part))
		enc := make([]*redis.StringCmd, len(part))
		card := make([]*redis.IntCmd, len(part))
		for i, k := range part {
			usage[i] = pipe.MemoryUsage(ctx, k, 0)
			enc[i] = pipe.ObjectEncoding(ctx, k)
			if zset {
				card[i] = pipe.ZCard(ctx, k)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return Memory{}, err
		}
		for i := range part {
			b, err := usage[i].Result()
			if err == redis.Nil {
				continue // expired since SCAN
			}
			if err != nil {
				return Memory{}, err
			}
			km := keyMem{bytes: b, enc: enc[i].Val()}
			if zset {
				km.entries = card[i].Val()
			}
			mems = append(mems, km)
			m.KeyNameBytes += float64(len(part[i]))
		}
	}
	m.SampledKeys = len(mems)
	if len(mems) == 0 {
		return m, nil
	}
	m.KeyNameBytes /= float64(len(mems))
	var total int64
	byEnc := map[string][]keyMem{}
	for _, km := range mems {
		total += km.bytes
		m.Entries += km.entries
		byEnc[km.enc] = append(byEnc[km.enc], km)
	}
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
		ks := byEnc[name]
		e := Encoding{Encoding: name, Keys: len(ks)}
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
		m.Encodings = append(m.Encodings, e)
	}
	return m, nil
}
