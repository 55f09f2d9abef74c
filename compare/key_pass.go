package compare

import "ratebench/summary"

// keyPass is what a run's summary reads of the live keys' rows: their
// counts of disagreeing keys and the top ones, their largest burst and the
// keys past L, and their open runs of rejections. A worker gathers it for
// every run in one pass over its keys (closeKeys), each key's rows once:
// a run's figure of a key is a word of the key's part of the block, so a
// pass per run and figure fetched every key's part many times over.
type keyPass struct {
	keys        summary.Run // KeysOver, KeysUnder and KeysDisagree
	top         *summary.TopKeys
	burst       summary.Burst // Max, Key and KeysOverL, from the peak of the keys released; runs with a burst only
	unrecovered int64         // runs with a client side only
}

// closeKeys returns, by run index in the engine's order (Engine.runs),
// the keyPass of every run with rows, topN keys kept of each.
func (w *worker) closeKeys(topN int) []*keyPass {
	accs := w.runs()
	passes := make([]*keyPass, len(accs))
	for i, a := range accs {
		passes[i] = &keyPass{top: summary.NewTopKeys(topN)}
		if a.burst != nil {
			passes[i].burst = summary.Burst{Max: a.burst.relMax, Key: a.burst.relKey}
		}
	}
	for id := range int32(w.rows.ids()) {
		for i, a := range accs {
			a.passKey(passes[i], w.keys, id)
		}
	}
	return passes
}

// passKey adds key id's rows in the run to p.
func (a *runAcc) passKey(p *keyPass, keys *keyTable, id int32) {
	over, under := a.rows.counts(id)
	if countKey(&p.keys, over, under) && p.top.Admits(over+under, keys.name(id)) {
		ks := summary.KeyStat{Key: keys.name(id), Requests: keys.at(id).requests, Disagree: over + under, Over: over, Under: under}
		if a.burst != nil {
			peak := a.rows.peak(id)
			ks.Burst = &peak
		}
		p.top.Offer(ks)
	}
	if a.burst != nil {
		a.burst.passKey(&p.burst, keys, id)
	}
	if a.client != nil && a.rows.ownAt(id).rejSince != 0 && keys.at(id).live {
		p.unrecovered++
	}
}
