package live

import (
	"context"
	"fmt"
	"time"
)

// LateBlockTrace is four requests of one key, 1 ns apart: under a rule of
// 2 a minute, two admitted, the third refused and blocking the key, the
// fourth refused by the block (CheckLateBlock).
func LateBlockTrace() *Trace {
	return &Trace{T: []int64{1, 2, 3, 4}, Key: make([]int32, 4), Keys: 1}
}

// CheckLateBlock decides LateBlockTrace's requests on s, software started
// on it under 2 a minute whose refusal writes its block in a later step:
// the third, and only it, must carry the block's start (Decision.Block),
// no earlier than the time it decided at and within the minute.
func CheckLateBlock(ctx context.Context, s Session) error {
	tr := LateBlockTrace()
	for i, want := range []struct{ admit, block bool }{{true, false}, {true, false}, {false, true}, {false, false}} {
		d, err := s.Decide(ctx, Request{Index: i, Key: KeyName(0), T: tr.T[i], Cost: 1})
		if err != nil {
			return err
		}
		if d.Admit != want.admit || d.Block != want.block || d.Block && (d.BlockAt < d.At || d.BlockAt > d.At+int64(time.Minute)) {
			return fmt.Errorf("request %d: %+v, want admitted %v, a block %v from no earlier than its time", i, d, want.admit, want.block)
		}
	}
	return nil
}
