package generators

import "ratebench/traces"

// batch is a run of generated requests handed from the generating
// goroutine to the writing one: times and costs, and the keys back to back.
type batch struct {
	t, cost []int64
	keys    []byte
	ends    []int
}

const batchSize = 8192

// WriteTo generates every request of g into w, generating on one goroutine
// while w encodes on the calling one, so that the two costs overlap on two
// cores. The requests reach w in the order Scan gives them; it returns how
// many were written. w is not closed.
func (g *Generator) WriteTo(w traces.Writer) (int64, error) {
	full := make(chan *batch, 4)
	free := make(chan *batch, 6)
	for range cap(free) {
		free <- &batch{}
	}
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for {
			var b *batch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.t, b.cost, b.keys, b.ends = b.t[:0], b.cost[:0], b.keys[:0], b.ends[:0]
			for len(b.t) < batchSize && g.Scan() {
				r := g.Request()
				b.t = append(b.t, r.T)
				b.cost = append(b.cost, r.Cost)
				b.keys = append(b.keys, r.Key...)
				b.ends = append(b.ends, len(b.keys))
			}
			if len(b.t) == 0 {
				return
			}
			full <- b
		}
	}()
	var n int64
	for b := range full {
		start := 0
		for i, t := range b.t {
			if err := w.Write(traces.Request{T: t, Key: b.keys[start:b.ends[i]], Cost: b.cost[i]}); err != nil {
				close(stop)
				for range full { // let the generator finish its batch and exit
				}
				return n, err
			}
			start = b.ends[i]
			n++
		}
		free <- b
	}
	return n, nil
}
