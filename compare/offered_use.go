package compare

import (
	"math/bits"

	"ratebench/algorithms"
	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// The offered use of a plain rule (summary.Binding): for every request,
// its key's cost in (t-W, t] including itself, every request counted
// whatever was decided. Under count all the group's reference records
// every request, so its sum before the request plus the request's cost is
// the offered use; under count accepted it records only what it admits.
// When the replay also counts all under the same rule, that group's
// reference gives the offered use (the worker replays that group first
// and reads it there); otherwise the accumulator keeps, per
// key, a window of the requests the log refused in the rule's window
// (none for a key it has not refused there, as most are where the rule
// hardly binds): the reference's sum, that window's and the request's cost
// make the offered use. The
// requests are counted by offered use, exactly below
// summary.UseExactBelow and in summary.UseBinsPerOctave bins per power of
// two above; the keys the log refused are counted at their first refusal,
// a flag per key that the release ledger keeps (useAcc.kept), so that a
// key refused, released and back is counted once.
//
// Cost per request: a few adds and comparisons on the key's useKey, which
// the worker places in its block beside the key's other state, and under
// count accepted, for a key the log refused within the window, the expiry
// of its refusals; memory per key: its useKey, and the refusals in the
// window of a key the log refuses.

// useAcc is one group's offered use and refusals.
type useAcc struct {
	w        int64        // the rule's window
	refusals bool         // add's exact is of a reference that holds only what it admitted (count accepted): the log's refusals in the window are kept
	refWin   smallWindows // under count accepted: the log's refusals in the window, by useKey.refWin
	perKey   algorithms.PerKey[useKey]

	exact   []int64   // requests by offered use, below summary.UseExactBelow
	binned  []int64   // requests by bin at or above it, indexed by useBin
	refused int64     // requests the log refused
	refKeys int64     // keys it refused at least once
	peak    int64     // the largest offered use
	peakKey string    // of this key, the smallest name on a tie
	keys    *keyTable // the worker's, for the peak key's name
}

// newUseAcc returns the offered-use accumulator of a plain rule under
// count c, nil for a layered rule.
func newUseAcc(layers []algorithms.Rule, c Count, keys *keyTable) *useAcc {
	if len(layers) != 1 {
		return nil
	}
	return &useAcc{keys: keys, w: layers[0].W, refusals: c == CountAccepted}
}

// useKey is what the offered use keeps of a key beside its refusals.
type useKey struct {
	refWin  uint32 // the handle of its refusals in the window in useAcc.refWin; 0 none
	flagged bool   // the log refused it at least once
}

// place puts the accumulator's keys in b.
func (u *useAcc) place(b *algorithms.Block) { u.perKey.Place(b) }

func (u *useAcc) grow(n int) { u.perKey.Grow(n) }

// add counts a request of key id at t of cost, whose reference's sum
// before it was exact (under count accepted, of the count-all reference
// when the worker reads it there) and
// decision ref.
func (u *useAcc) add(id int32, t, cost, exact int64, ref bool) {
	use := exact + cost
	k := u.perKey.At(id)
	if u.refusals {
		var r *smallWindow
		if k.refWin != 0 { // else no refusal is in the window: nothing more is read
			r = u.refWin.at(k.refWin)
			r.expire(&u.refWin, t-u.w)
			use += r.sum(&u.refWin)
		}
		if !ref {
			if r == nil {
				k.refWin = u.refWin.make()
				r = u.refWin.at(k.refWin)
			}
			r.add(&u.refWin, t, cost)
		} else if r != nil && r.empty(&u.refWin) {
			u.refWin.drop(k.refWin)
			k.refWin = 0
		}
	}
	if use < summary.UseExactBelow {
		u.exact = slicesx.Grow(u.exact, int(use)+1)
		u.exact[use]++
	} else {
		i := useBin(use)
		u.binned = slicesx.Grow(u.binned, i+1)
		u.binned[i]++
	}
	if use >= u.peak {
		u.notePeak(id, use)
	}
	if !ref {
		u.refused++
		if !k.flagged {
			k.flagged = true
			u.refKeys++
		}
	}
}

// notePeak makes key id's use the peak if it is larger, or as large
// and of a smaller name (the peak then does not depend on how the keys
// were shared among workers).
func (u *useAcc) notePeak(id int32, use int64) {
	if use > u.peak || u.keys.nameBefore(id, u.peakKey) {
		u.peak, u.peakKey = use, u.keys.name(id)
	}
}

// idle reports whether key id holds no refusal in the window at now.
func (u *useAcc) idle(id int32, now int64) bool {
	if !u.refusals {
		return true
	}
	k := u.perKey.At(id)
	if k.refWin == 0 {
		return true
	}
	r := u.refWin.at(k.refWin)
	return r.empty(&u.refWin) || r.newest(&u.refWin) <= now-u.w
}

// kept is what the release ledger keeps of key id: its flag.
func (u *useAcc) kept(id int32) int64 {
	if u.perKey.At(id).flagged {
		return 1
	}
	return 0
}

// release forgets key id.
func (u *useAcc) release(id int32) {
	k := u.perKey.At(id)
	if k.refWin != 0 {
		u.refWin.drop(k.refWin)
	}
	*k = useKey{}
}

// restore gives a returning key (now id) the flag it left.
func (u *useAcc) restore(id int32, kept int64) { u.perKey.At(id).flagged = kept != 0 }

// binding returns the binding of the rule, whose group replayed requests.
func (u *useAcc) binding(rule string, c Count, requests int64) summary.Binding {
	bins := []summary.UseBin{} // in increasing use: the exact uses, then the bins above them
	for use, n := range u.exact {
		if n > 0 {
			bins = append(bins, summary.UseBin{Use: int64(use), Requests: n})
		}
	}
	for i, n := range u.binned {
		if n > 0 {
			bins = append(bins, summary.UseBin{Use: useBinTop(i), Requests: n})
		}
	}
	b := summary.Binding{Rule: rule, Count: string(c), Requests: requests, LogRefused: u.refused, KeysRefused: u.refKeys,
		PeakUse: u.peak, PeakKey: u.peakKey, UseBins: bins}
	b.SetTighter() // the rule is the group's own, which parses
	return b
}

// useBin returns the index of use u's bin among the bins at or above
// summary.UseExactBelow (2^13): bins of summary.UseBinsPerOctave (2^12)
// per power of two, so that the requests are counted in a slice, not a
// map.
func useBin(u int64) int {
	k := 63 - bits.LeadingZeros64(uint64(u)) // 2^k <= u < 2^(k+1), k >= 13
	return (k-13)*summary.UseBinsPerOctave + int(u>>(k-12)) - summary.UseBinsPerOctave
}

// useBinTop returns the largest use in bin i (useBin), as
// summary.UseBinTop.
func useBinTop(i int) int64 {
	k := 13 + i/summary.UseBinsPerOctave
	width := int64(1) << (k - 12)
	return int64(i%summary.UseBinsPerOctave+summary.UseBinsPerOctave)*width + width - 1
}
