package minheap

import (
	"cmp"
	"container/heap"
	"math/rand/v2"
	"testing"
)

// The benchmarks replay the two callers' use of a heap, with minheap and
// with container/heap, per operation (one push and one pop):
//
//   - Storm is a source of the generators' retry scenario at a spike:
//     burst 10 requests within 1 ms, each re-sent 4 times with exponential
//     backoff (1, 2, 4, 8 s) and jitter, the 50 attempt times pushed at
//     once and then popped in order (int64 times, cmp.Less).
//   - Clients is a key of compare/clients' closed loop: a few retries
//     pending at a time (8), each popped when due and another scheduled
//     later (a 40-byte retry ordered by send time, then by scheduling
//     order).

// clientRetry is compare/clients' retry.
type clientRetry struct {
	at, orig, cost int64
	n              int32
	seq            uint64
}

func before(a, b clientRetry) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

// stormTimes returns the attempt times of n spikes, 50 each.
func stormTimes(n int) [][]int64 {
	r := rand.New(rand.NewPCG(1, 2))
	spikes := make([][]int64, n)
	for s := range spikes {
		spike := int64(s) * 300e9
		for range 10 {
			t := spike + r.Int64N(1e6)
			spikes[s] = append(spikes[s], t)
			for i := range 4 {
				t += int64(float64(int64(1e9)<<i) * (1 + 0.5*r.Float64()))
				spikes[s] = append(spikes[s], t)
			}
		}
	}
	return spikes
}

func BenchmarkStorm(b *testing.B) {
	spikes := stormTimes(64)
	b.Run("minheap", func(b *testing.B) {
		var h []int64
		var sum int64
		for i := 0; b.Loop(); i++ {
			for _, t := range spikes[i%len(spikes)] {
				h = Push(h, t, cmp.Less[int64])
			}
			for len(h) > 0 {
				var t int64
				t, h = Pop(h, cmp.Less[int64])
				sum += t
			}
		}
		reportPerOp(b, 50)
		_ = sum
	})
	b.Run("container_heap", func(b *testing.B) {
		h := &int64Heap{}
		var sum int64
		for i := 0; b.Loop(); i++ {
			for _, t := range spikes[i%len(spikes)] {
				heap.Push(h, t)
			}
			for h.Len() > 0 {
				sum += heap.Pop(h).(int64)
			}
		}
		reportPerOp(b, 50)
		_ = sum
	})
}

func BenchmarkClients(b *testing.B) {
	const pending = 8
	r := rand.New(rand.NewPCG(3, 4))
	delays := make([]int64, 1024)
	for i := range delays {
		delays[i] = 1e9 + r.Int64N(2e9) // a backoff with jitter
	}
	b.Run("minheap", func(b *testing.B) {
		var h []clientRetry
		var seq uint64
		for range pending {
			seq++
			h = Push(h, clientRetry{at: delays[seq%1024], seq: seq, cost: 1}, before)
		}
		for b.Loop() {
			var due clientRetry
			due, h = Pop(h, before)
			seq++
			h = Push(h, clientRetry{at: due.at + delays[seq%1024], orig: due.orig, cost: due.cost, n: due.n + 1, seq: seq}, before)
		}
		reportPerOp(b, 1)
	})
	b.Run("container_heap", func(b *testing.B) {
		h := &retryHeap{}
		var seq uint64
		for range pending {
			seq++
			heap.Push(h, clientRetry{at: delays[seq%1024], seq: seq, cost: 1})
		}
		for b.Loop() {
			due := heap.Pop(h).(clientRetry)
			seq++
			heap.Push(h, clientRetry{at: due.at + delays[seq%1024], orig: due.orig, cost: due.cost, n: due.n + 1, seq: seq})
		}
		reportPerOp(b, 1)
	})
}

// reportPerOp reports the time of one push and one pop, of n each per
// iteration.
func reportPerOp(b *testing.B, n int) {
	b.ReportAllocs()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/push+pop")
}

// int64Heap and retryHeap are the heap.Interface a caller of
// container/heap writes.
type int64Heap []int64

func (h int64Heap) Len() int           { return len(h) }
func (h int64Heap) Less(i, j int) bool { return h[i] < h[j] }
func (h int64Heap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *int64Heap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *int64Heap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type retryHeap []clientRetry

func (h retryHeap) Len() int           { return len(h) }
func (h retryHeap) Less(i, j int) bool { return before(h[i], h[j]) }
func (h retryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *retryHeap) Push(x any)        { *h = append(*h, x.(clientRetry)) }
func (h *retryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
