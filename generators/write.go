package generators

import "ratebench/traces"

// batchSize is the number of requests of a batch handed from the generating
// goroutine to the writing one.
const batchSize = 8192

// WriteTo generates every request of g into w, generating on one goroutine
// while w encodes on the calling one, so that the two costs overlap on two
// cores. The requests reach w in the order Scan gives them, in batches
// (traces.WriteBatch) whose IDs are the sources' positions among those
// kept and whose keys are the sources' names; it returns how many were
// written. w is not closed.
func (g *Generator) WriteTo(w traces.Writer) (int64, error) {
	full := make(chan *traces.Batch, 4)
	free := make(chan *traces.Batch, 6)
	for range cap(free) {
		free <- &traces.Batch{}
	}
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for {
			var b *traces.Batch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			if g.nextBatch(b, batchSize) == 0 {
				return
			}
			full <- b
		}
	}()
	var n int64
	for b := range full {
		k, err := traces.WriteBatch(w, b)
		n += int64(k)
		if err != nil {
			close(stop)
			for range full { // let the generator finish its batch and exit
			}
			return n, err
		}
		free <- b
	}
	return n, nil
}

// nextBatch fills b with the next requests, at most max of them, as Scan
// would give them one by one, and returns how many. Their keys are known
// by their IDs (b.Names).
func (g *Generator) nextBatch(b *traces.Batch, max int) int {
	b.Reset()
	b.Names = &g.names
	mask := uint64(1)<<g.srcBits - 1
	for b.Len() < max && g.done < g.p.Requests {
		if g.i == len(g.buf) && !g.fill() {
			break
		}
		n := min(len(g.buf)-g.i, max-b.Len(), int(g.p.Requests-g.done))
		for _, e := range g.buf[g.i : g.i+n] {
			b.T = append(b.T, g.base+int64(e>>g.srcBits))
			b.Cost = append(b.Cost, 1)
			b.IDs = append(b.IDs, int32(e&mask))
		}
		g.i += n
		g.done += int64(n)
	}
	return b.Len()
}
