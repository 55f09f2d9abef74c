package live

import (
	"fmt"

	"ratebench/algorithms"
	"ratebench/summary"
)

// Decide replays tr through spec for rule r at times, in the trace's
// order (DecideInOrder).
func Decide(spec string, r algorithms.Rule, tr *Trace, times []int64) ([]bool, error) {
	out, _, err := DecideInOrder(spec, r, tr, nil, times, nil)
	return out, err
}

// DecideInOrder replays tr through spec for rule r, the requests in order
// (nil: the trace's) each at its time in times and with its cost,
// counting requests as the product does (every request, or the admitted
// ones), and returns each request's decision, indexed as the trace, and
// the limiter once it has decided them all. blocks (nil: none) maps a
// request, by its index, to when the software began the block its refusal
// set (Decision.BlockAt): the model's block is moved there once it has
// decided the request.
func DecideInOrder(spec string, r algorithms.Rule, tr *Trace, order []int, times []int64, blocks map[int]int64) ([]bool, algorithms.Limiter, error) {
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, nil, err
	}
	mover, _ := l.(blockMover)
	if len(blocks) > 0 && mover == nil {
		return nil, nil, fmt.Errorf("the software began blocks after its refusals, and the model %s cannot move a block", spec)
	}
	l.Grow(tr.Keys)
	every := algorithms.CountsEvery(l)
	out := make([]bool, len(tr.T))
	decide := func(i int) {
		id := tr.Key[i]
		ok := l.Decide(id, times[i], tr.CostOf(i))
		if ok || every {
			l.Record(id, times[i], tr.CostOf(i))
		}
		out[i] = ok
		if at, ok := blocks[i]; ok {
			mover.MoveBlock(id, at)
		}
	}
	if order == nil {
		for i := range tr.T {
			decide(i)
		}
	} else {
		for _, i := range order {
			decide(i)
		}
	}
	return out, l, nil
}

// blockMover is a model whose refusal can begin a block (a product's
// block after a refusal) that the software may set in a later step than
// its decision: MoveBlock begins key id's block at t instead, where the
// key is blocked.
type blockMover interface{ MoveBlock(id int32, t int64) }

// Agreement counts where real and other agree, classifying the
// disagreements by whether an earlier one of the same key precedes them.
func Agreement(against, times string, real, other []bool, tr *Trace) summary.LiveAgreement {
	a := summary.LiveAgreement{Against: against, Times: times}
	seen := make([]bool, tr.Keys)
	first, follow := summary.LiveClass{Name: "first of its key", Meaning: "the key's first request decided differently"},
		summary.LiveClass{Name: "after one of its key", Meaning: "an earlier request of the same key was decided differently, so the two states differ"}
	for i := range real {
		switch {
		case real[i] == other[i]:
			a.Agree++
			continue
		case real[i]:
			a.SoftwareOnly++
		default:
			a.OtherOnly++
		}
		c := &first
		if seen[tr.Key[i]] {
			c = &follow
		}
		seen[tr.Key[i]] = true
		c.Add(i)
	}
	a.Classes = summary.NonEmptyClasses(first, follow)
	return a
}

// logClasses explains the software's disagreements with the exact log:
// the product's algorithm when its model on the trace's times decides as
// the software did, the replay's timing otherwise.
func logClasses(real, exact, model []bool) []summary.LiveClass {
	alg := summary.LiveClass{Name: "the product's algorithm", Meaning: "its model on the trace's times decides as the software did"}
	timing := summary.LiveClass{Name: "the replay's timing", Meaning: "its model on the trace's times decides as the log: the software saw other times"}
	for i := range real {
		if real[i] == exact[i] {
			continue
		}
		c := &timing
		if model[i] == real[i] {
			c = &alg
		}
		c.Add(i)
	}
	return summary.NonEmptyClasses(alg, timing)
}

// differences lists the first requests the software and its model decide
// differently.
func differences(real, model []bool, tr *Trace, at []int64) []summary.LiveDifference {
	var out []summary.LiveDifference
	for i := range real {
		if real[i] != model[i] && len(out) < summary.MaxLiveDifferences {
			out = append(out, summary.LiveDifference{Request: i + 1, Key: KeyName(tr.Key[i]), TraceNS: tr.T[i], AtNS: at[i], Software: real[i], Model: model[i]})
		}
	}
	return out
}
