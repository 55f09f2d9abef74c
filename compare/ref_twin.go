package compare

// refTwin is the exact log as a product's twin (a companion the group
// replays beside the product) where the group's reference is the plain log
// of the same rule: it would record what the reference records (its own
// admissions, which are the reference's; the reference's in shadow mode;
// every request under count all), so that its log would be the
// reference's at every request and decide as it does. It keeps no log of
// its own, and answers the reference's decision on the request being
// replayed (the group's observation): the twin's window is the
// reference's, with no exception.
type refTwin struct {
	cur *observation // the group's request being replayed, the reference's decision in it
}

// newRefTwin returns the twin of the group's reference, nil where it has
// none to share (behind a refusal cache, or with layers, the reference
// decides otherwise than the plain log), or where own asks the twin to
// keep a log of its own (tuning.ownTwin).
func (g *group) newRefTwin(own bool) *refTwin {
	if own || g.refBlock != nil || len(g.guards) > 0 {
		return nil
	}
	return &refTwin{cur: &g.current}
}

func (*refTwin) Name() string                      { return "log" }
func (t *refTwin) Decide(int32, int64, int64) bool { return t.cur.ref }
func (*refTwin) Record(int32, int64, int64)        {} // the reference has
func (*refTwin) Grow(int)                          {}
func (*refTwin) FixedSize() bool                   { return false }
func (*refTwin) CountsRejected() bool              { return true }

// Bytes is never read: a companion's memory is not reported.
func (*refTwin) Bytes(int32) int64 { return 0 }

// Idle holds for what the twin keeps of a key: nothing (the reference's
// own state is tested for its release).
func (*refTwin) Idle(int32, int64) bool { return true }
func (*refTwin) Release(int32)          {}
